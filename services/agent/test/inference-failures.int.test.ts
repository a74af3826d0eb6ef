import request from 'supertest';

import { startLocalServer, type LocalServer } from '@platform/testing';

import { OPENAI_KEY, startInferenceFixture, type InferenceFixture } from './inference-fixture';

let f: InferenceFixture;
let alice: string;
let bob: string;
let openaiAgent: string;

beforeAll(async () => {
  f = await startInferenceFixture();
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  openaiAgent = await f.agent(alice, { llm_credential_id: await f.credential(alice, 'openai') });
});
afterAll(() => f.close());

const ask = (agentId = openaiAgent, key = alice) =>
  f.chat(key, { agent_id: agentId, session_id: 'fail', message: 'hi' });
const openAiError = (message: string) => ({ error: { message, type: 'server_error' } });

describe('provider failures', () => {
  it('429 with Retry-After: 1, then 200 → succeeds after one retry, about a second later', async () => {
    const before = f.openai.requests.length;
    f.openai.script({ status: 429, headers: { 'retry-after': '1' }, body: openAiError('Rate limit reached') });
    const started = Date.now();
    const res = await ask();
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('echo: hi');
    expect(f.openai.requests.length - before).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('three 500s → 502 with the status and the provider’s message, after exactly three attempts', async () => {
    const before = f.openai.requests.length;
    f.openai.script(...[1, 2, 3].map(() => ({ status: 500, body: openAiError('The server had an error') })));
    const res = await ask();
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'LLM provider error: 500 The server had an error' });
    expect(f.openai.requests.length - before).toBe(3);
  });

  it('a 400 is not retried; Anthropic’s error shape is read too', async () => {
    const before = f.openai.requests.length;
    f.openai.script({ status: 400, body: openAiError("Unsupported parameter: 'top_p'") });
    const res = await ask();
    expect(res).toMatchObject({
      status: 502,
      body: { detail: "LLM provider error: 400 Unsupported parameter: 'top_p'" },
    });
    expect(f.openai.requests.length - before).toBe(1);

    const anthropicAgent = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'anthropic'),
      provider_id: 'anthropic',
      model: 'claude-x',
    });
    f.anthropic.script({
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    });
    expect((await ask(anthropicAgent)).body).toEqual({ detail: 'LLM provider error: 401 invalid x-api-key' });
  });

  it('a provider that echoes the key in its error does not get it into the response', async () => {
    f.openai.script({ status: 401, body: openAiError(`Incorrect API key provided: ${OPENAI_KEY}.`) });
    const res = await ask();
    expect(res.status).toBe(502);
    expect(res.body.detail).toBe('LLM provider error: 401 Incorrect API key provided: ***.');
  });

  it('a 200 without content → 502', async () => {
    f.openai.script({
      body: { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' } }] },
    });
    expect((await ask()).body).toEqual({
      detail: 'LLM provider error: 200 the model refused: I cannot help with that.',
    });
  });

  it('a provider at a loopback address that is not allow-listed is refused before any connection', async () => {
    const canary: LocalServer = await startLocalServer((_req, res) => res.end('{}'));
    const credential = await f.credential(alice, 'openai', {
      credentials: { api_key: OPENAI_KEY, base_url: `http://127.0.0.1:${canary.port}/v1` },
    });
    const agentId = await f.agent(alice, { llm_credential_id: credential });
    const res = await ask(agentId);
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/^LLM provider error: refused to connect to 127\.0\.0\.1:\d+ .*loopback/);
    expect(canary.connections).toBe(0);
    await canary.close();
  });
});

it('a provider that hangs → 502 timeout within the configured time', async () => {
  const hung = await startInferenceFixture({ providerTimeoutMs: 1000 });
  try {
    const key = await hung.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    const agentId = await hung.agent(key, { llm_credential_id: await hung.credential(key, 'openai') });
    hung.openai.script('hang', 'hang', 'hang');
    const started = Date.now();
    const res = await hung.chat(key, { agent_id: agentId, session_id: 'h', message: 'hi' });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'LLM provider error: timeout after 1000 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(2500);
    expect(hung.openai.requests).toHaveLength(1);
  } finally {
    await hung.close();
  }
});

describe('agents that cannot run', () => {
  it('another owner’s agent, an unknown one and a malformed id → 404 Agent not found', async () => {
    for (const [key, id] of [
      [bob, openaiAgent],
      [alice, '999999'],
      [alice, 'abc'],
      [alice, '0'],
    ] as const) {
      const res = await ask(id, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Agent not found' });
    }
  });

  const unusable: [string, () => Promise<Record<string, unknown>>, string][] = [
    ['no llm_credential_id', async () => ({ llm_credential_id: null }), 'credential_missing'],
    [
      'a credential of another owner',
      async () => ({ llm_credential_id: await f.credential(bob, 'openai') }),
      'credential_not_found',
    ],
    ['a deleted credential', async () => ({ llm_credential_id: '0123456789abcdef01234567' }), 'credential_not_found'],
    [
      'an unknown provider_id',
      async () => ({ llm_credential_id: await f.credential(alice, 'openai'), provider_id: 'mystery-ai' }),
      'provider_unsupported',
    ],
    [
      'vllm without a base_url',
      async () => ({
        llm_credential_id: await f.credential(alice, 'openai', { credentials: { api_key: 'k' } }),
        provider_id: 'vLLM',
      }),
      'base_url_missing',
    ],
    [
      'no model',
      async () => ({ llm_credential_id: await f.credential(alice, 'openai'), model: null }),
      'model_missing',
    ],
  ];
  it.each(unusable)('%s → 422 on body.agent_id, nothing sent', async (_n, over, type) => {
    const agentId = await f.agent(alice, await over());
    const before = f.openai.requests.length;
    const res = await ask(agentId);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'agent_id'], msg: expect.any(String), type }]);
    expect(f.openai.requests.length).toBe(before);
  });
});

it('the provider keys appear in no log line', async () => {
  const all = f.t.lines.join('\n');
  expect(f.t.lines.some((l) => l.includes('LLM provider call failed'))).toBe(true);
  expect(all).not.toContain(OPENAI_KEY);
  expect(all).not.toContain(OPENAI_KEY.slice(8));
  const res = await request(f.t.app).get('/v3/providers/credentials').set('x-api-key', alice);
  expect(res.text).not.toContain(OPENAI_KEY);
});
