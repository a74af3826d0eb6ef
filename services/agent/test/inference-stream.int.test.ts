import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';

import { startInferenceFixture, type InferenceFixture } from './inference-fixture';
import { contentOf, openStream } from './stream-client';

let f: InferenceFixture;
let server: RunningServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  f = await startInferenceFixture({ providerTimeoutMs: 10_000 });
  server = await listen(f.t.app, 0, undefined, '127.0.0.1');
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'globex' });
});
afterAll(async () => {
  await server.close(1_000);
  await f.close();
});

/** Waits until `check` holds, polling; fails after `ms`. */
async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function agentOn(provider: 'openai' | 'anthropic', over: Record<string, unknown> = {}) {
  const credential = await f.credential(alice, provider);
  return f.agent(alice, {
    llm_credential_id: credential,
    provider_id: provider,
    model: provider === 'openai' ? 'gpt-4o-mini' : 'claude-test',
    ...over,
  });
}

describe.each(['openai', 'anthropic'] as const)('POST /v3/inference/stream/ (%s protocol)', (provider) => {
  const fake = () => (provider === 'openai' ? f.openai : f.anthropic);

  it('sends one content event per delta, then [DONE], calling the provider with stream: true', async () => {
    const agentId = await agentOn(provider);
    fake().script({ stream: ['Hel', 'lo, ', 'world'] });
    const s = await openStream(server.port, alice, { agent_id: agentId, session_id: `s-${provider}`, message: 'Hi' });
    expect(s.status).toBe(200);
    expect(s.contentType).toMatch(/^text\/event-stream/);
    const events = await s.rest();
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'message']);
    expect(events.slice(0, 3).map(contentOf)).toEqual(['Hel', 'lo, ', 'world']);
    expect(events[3]!.data).toBe('[DONE]');
    const sent = fake().bodies().at(-1)!;
    expect(sent.stream).toBe(true);
    expect((sent.messages as unknown[]).at(-1)).toEqual({ role: 'user', content: 'Hi' });
  });

  it('delivers the first delta before the provider has sent its last one', async () => {
    const agentId = await agentOn(provider);
    fake().script({ stream: ['first', ' second', ' third'], holdAfter: 1 });
    const before = fake().sentDeltas();
    const s = await openStream(server.port, alice, {
      agent_id: agentId,
      session_id: `early-${provider}`,
      message: 'Hi',
    });
    expect(contentOf(await s.next())).toBe('first');
    // The stand-in is still holding its second and third deltas: only one has been written.
    expect(fake().sentDeltas() - before).toBe(1);
    fake().release();
    const rest = await s.rest();
    expect(rest.slice(0, 2).map(contentOf)).toEqual([' second', ' third']);
    expect(rest[2]!.data).toBe('[DONE]');
    expect(fake().sentDeltas() - before).toBe(3);
  });

  it('stores the turn when the stream ends, and sends it as history on the next turn', async () => {
    const agentId = await agentOn(provider);
    fake().script({ stream: ['Paris', ' is the capital.'] });
    const s = await openStream(server.port, alice, {
      agent_id: agentId,
      session_id: `mem-${provider}`,
      message: 'Capital of France?',
    });
    const events = await s.rest();
    expect(events.at(-1)!.data).toBe('[DONE]');
    const listed = await request(f.t.app)
      .get(`/v3/inference/sessions/mem-${provider}/messages`)
      .set('x-api-key', alice);
    expect(listed.status).toBe(200);
    expect(listed.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['assistant', 'Paris is the capital.'],
      ['user', 'Capital of France?'],
    ]);
    expect(listed.body.messages[0].usage).toEqual(
      expect.objectContaining({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) }),
    );
    fake().script({ stream: ['Yes.'] });
    await (
      await openStream(server.port, alice, { agent_id: agentId, session_id: `mem-${provider}`, message: 'Sure?' })
    ).rest();
    expect(fake().bodies().at(-1)!.messages).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: 'assistant', content: 'Paris is the capital.' })]),
    );
  });

  it('ends with event: error after the first byte when the provider fails mid-stream, storing nothing', async () => {
    const agentId = await agentOn(provider);
    fake().script({ stream: ['partial', ' never'], failAfter: 1 });
    const s = await openStream(server.port, alice, {
      agent_id: agentId,
      session_id: `fail-${provider}`,
      message: 'Hi',
    });
    expect(s.status).toBe(200);
    const events = await s.rest();
    expect(contentOf(events[0]!)).toBe('partial');
    expect(events[1]!.event).toBe('error');
    expect(JSON.parse(events[1]!.data)).toEqual({
      detail: expect.stringMatching(/^LLM provider error: .*overloaded/i),
    });
    expect(events).toHaveLength(2);
    const listed = await request(f.t.app)
      .get(`/v3/inference/sessions/fail-${provider}/messages`)
      .set('x-api-key', alice);
    expect(listed.body.total).toBe(0);
  });

  it('aborts the provider call when the client disconnects', async () => {
    const agentId = await agentOn(provider);
    fake().script({ stream: ['one', ' two'], holdAfter: 1 });
    const aborted = fake().abortedStreams();
    const s = await openStream(server.port, alice, {
      agent_id: agentId,
      session_id: `gone-${provider}`,
      message: 'Hi',
    });
    expect(contentOf(await s.next())).toBe('one');
    s.destroy();
    await eventually(() => fake().abortedStreams() === aborted + 1);
    fake().release();
    expect(fake().abortedStreams()).toBe(aborted + 1);
  });
});

describe('POST /v3/inference/stream/ errors before the first byte are JSON', () => {
  it('403 without a key or with an unknown one', async () => {
    const none = await openStream(server.port, null, { agent_id: '1', session_id: 's', message: 'Hi' });
    expect([none.status, none.contentType, JSON.parse(await none.text())]).toEqual([
      403,
      expect.stringMatching(/^application\/json/),
      { detail: 'API key missing' },
    ]);
    const bad = await request(f.t.app)
      .post('/v3/inference/stream')
      .set('x-api-key', 'sk_unknown')
      .send({ agent_id: '1', session_id: 's', message: 'Hi' });
    expect([bad.status, bad.body]).toEqual([403, { detail: 'Invalid Permission' }]);
  });

  it("404 for an unknown agent and for another owner's", async () => {
    const agentId = await agentOn('openai');
    const unknown = await request(f.t.app)
      .post('/v3/inference/stream/')
      .set('x-api-key', alice)
      .send({ agent_id: '999999', session_id: 's', message: 'Hi' });
    expect([unknown.status, unknown.body]).toEqual([404, { detail: 'Agent not found' }]);
    const other = await request(f.t.app)
      .post('/v3/inference/stream/')
      .set('x-api-key', bob)
      .send({ agent_id: agentId, session_id: 's', message: 'Hi' });
    expect([other.status, other.body]).toEqual([404, { detail: 'Agent not found' }]);
  });

  it('422 for an invalid body and for an agent without a credential, nothing sent to the provider', async () => {
    const sent = f.openai.requests.length;
    const invalid = await request(f.t.app)
      .post('/v3/inference/stream/')
      .set('x-api-key', alice)
      .send({ agent_id: '1', message: 42 });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'session_id'],
        ['body', 'message'],
      ]),
    );
    const bare = await f.agent(alice, { llm_credential_id: null });
    const unusable = await request(f.t.app)
      .post('/v3/inference/stream/')
      .set('x-api-key', alice)
      .send({ agent_id: bare, session_id: 's', message: 'Hi' });
    expect(unusable.status).toBe(422);
    expect(unusable.body.detail[0]).toMatchObject({ loc: ['body', 'agent_id'], type: 'credential_missing' });
    expect(f.openai.requests.length).toBe(sent);
  });

  it("502 JSON when the provider refuses the call before streaming, with the provider's message", async () => {
    const agentId = await agentOn('openai');
    f.openai.script({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const res = await request(f.t.app)
      .post('/v3/inference/stream/')
      .set('x-api-key', alice)
      .send({ agent_id: agentId, session_id: 's', message: 'Hi' });
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: 'LLM provider error: 401 Incorrect API key provided' });
  });
});
