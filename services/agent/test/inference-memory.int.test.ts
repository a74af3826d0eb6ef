import request from 'supertest';

import { startInferenceFixture, type InferenceFixture } from './inference-fixture';

let f: InferenceFixture;
let alice: string;
let bob: string;
let aliceElsewhere: string;

beforeAll(async () => {
  f = await startInferenceFixture();
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
});
afterAll(() => f.close());

const memory = (count?: number) => [
  { type: 'MEMORY', config: count === undefined ? {} : { max_messages_context_count: count }, priority: 0 },
];
const say = async (key: string, agentId: string, session: string, message: string) => {
  const res = await f.chat(key, { agent_id: agentId, session_id: session, message });
  expect(res.status).toBe(200);
  return f.openai.bodies().at(-1)!.messages as { role: string; content: string }[];
};
const messages = (key: string, session: string, query = '') =>
  request(f.t.app).get(`/v3/inference/sessions/${session}/messages${query}`).set('x-api-key', key);

describe('MEMORY', () => {
  it('sends the session’s earlier turns, oldest first, before the new message', async () => {
    const agentId = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: memory(),
      system_prompt: 'Sys',
    });
    await say(alice, agentId, 'm1', 'one');
    await say(alice, agentId, 'm1', 'two');
    expect(await say(alice, agentId, 'm1', 'three')).toEqual([
      { role: 'system', content: 'Sys' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'echo: one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'echo: two' },
      { role: 'user', content: 'three' },
    ]);
    // another session of the same agent starts empty
    expect(await say(alice, agentId, 'm2', 'fresh')).toEqual([
      { role: 'system', content: 'Sys' },
      { role: 'user', content: 'fresh' },
    ]);
  });

  it('keeps to max_messages_context_count (the last N messages)', async () => {
    const agentId = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: memory(3),
      system_prompt: null,
    });
    for (const m of ['a', 'b', 'c']) await say(alice, agentId, 'win', m);
    expect(await say(alice, agentId, 'win', 'd')).toEqual([
      { role: 'assistant', content: 'echo: b' },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: 'echo: c' },
      { role: 'user', content: 'd' },
    ]);
  });

  it('without the MEMORY feature no history is sent, though turns are stored', async () => {
    const agentId = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: [],
      system_prompt: null,
    });
    await say(alice, agentId, 'nomem', 'first');
    expect(await say(alice, agentId, 'nomem', 'second')).toEqual([{ role: 'user', content: 'second' }]);
    expect((await messages(alice, 'nomem')).body.total).toBe(4);
  });

  it('store_messages: false stores nothing', async () => {
    const agentId = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: memory(),
      store_messages: false,
      system_prompt: null,
    });
    await say(alice, agentId, 'nostore', 'first');
    expect(await say(alice, agentId, 'nostore', 'second')).toEqual([{ role: 'user', content: 'second' }]);
    expect((await messages(alice, 'nostore')).body).toEqual({ messages: [], total: 0 });
  });

  it('is isolated between owners using the same session_id', async () => {
    const mine = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: memory(),
      system_prompt: null,
    });
    const bobs = await f.agent(bob, {
      llm_credential_id: await f.credential(bob, 'openai'),
      features: memory(),
      system_prompt: null,
    });
    const elsewhere = await f.agent(aliceElsewhere, {
      llm_credential_id: await f.credential(aliceElsewhere, 'openai'),
      features: memory(),
      system_prompt: null,
    });
    await say(alice, mine, 'shared', 'alice secret plan');
    expect(await say(bob, bobs, 'shared', 'bob here')).toEqual([{ role: 'user', content: 'bob here' }]);
    expect(await say(aliceElsewhere, elsewhere, 'shared', 'globex here')).toEqual([
      { role: 'user', content: 'globex here' },
    ]);
    const bobView = (await messages(bob, 'shared')).body;
    expect(bobView.total).toBe(2);
    expect(JSON.stringify(bobView)).not.toContain('alice secret plan');
    expect(await say(alice, mine, 'shared', 'again')).toEqual([
      { role: 'user', content: 'alice secret plan' },
      { role: 'assistant', content: 'echo: alice secret plan' },
      { role: 'user', content: 'again' },
    ]);
  });

  keepsCompleteTurnsInOrder();
});

function keepsCompleteTurnsInOrder(): void {
  it('turns that start in the same millisecond keep their order', async () => {
    const frozen = await startInferenceFixture({ clock: () => new Date('2030-01-01T00:00:00.000Z') });
    try {
      const key = await frozen.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
      const agentId = await frozen.agent(key, {
        llm_credential_id: await frozen.credential(key, 'openai'),
        features: memory(),
        system_prompt: null,
      });
      for (const message of ['1', '2', '3'])
        expect((await frozen.chat(key, { agent_id: agentId, session_id: 'same-ms', message })).status).toBe(200);
      expect(frozen.openai.bodies().at(-1)!.messages).toEqual([
        { role: 'user', content: '1' },
        { role: 'assistant', content: 'echo: 1' },
        { role: 'user', content: '2' },
        { role: 'assistant', content: 'echo: 2' },
        { role: 'user', content: '3' },
      ]);
    } finally {
      await frozen.close();
    }
  });

  it('a failed provider call stores nothing, so memory holds only complete turns', async () => {
    const agentId = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: memory(),
      system_prompt: null,
    });
    f.openai.script({ status: 400, body: { error: { message: 'bad' } } });
    expect((await f.chat(alice, { agent_id: agentId, session_id: 'failed', message: 'lost' })).status).toBe(502);
    expect(await say(alice, agentId, 'failed', 'kept')).toEqual([{ role: 'user', content: 'kept' }]);
  });
}

describe('GET /v3/inference/sessions/{session_id}/messages', () => {
  it('lists the owner’s messages newest first with token usage, paged, filterable by agent', async () => {
    const agentId = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'openai'),
      features: memory(),
    });
    const claude = await f.agent(alice, {
      llm_credential_id: await f.credential(alice, 'anthropic'),
      provider_id: 'anthropic',
      model: 'claude-x',
    });
    await say(alice, agentId, 'list', 'q1');
    await say(alice, agentId, 'list', 'q2');
    expect((await f.chat(alice, { agent_id: claude, session_id: 'list', message: 'q3' })).status).toBe(200);

    const all = await messages(alice, 'list');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(6);
    expect(all.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'echo: q3',
      'q3',
      'echo: q2',
      'q2',
      'echo: q1',
      'q1',
    ]);
    expect(all.body.messages[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      session_id: 'list',
      agent_id: claude,
      role: 'assistant',
      content: 'echo: q3',
      created_at: expect.stringMatching(/Z$/),
      usage: { prompt_tokens: 23, completion_tokens: 5, total_tokens: 28 },
      tool_calls: [],
    });
    expect(all.body.messages[2].usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(all.body.messages[1].usage).toBeNull();

    const page = await messages(alice, 'list', `?skip=1&limit=2&agent_id=${agentId}`);
    expect(page.body.total).toBe(4);
    expect(page.body.messages.map((m: { content: string }) => m.content)).toEqual(['q2', 'echo: q1']);
  });

  it('another owner’s session reads as an empty list, exactly like a session that does not exist', async () => {
    for (const key of [bob, aliceElsewhere]) {
      expect((await messages(key, 'list')).body).toEqual({ messages: [], total: 0 });
    }
    expect((await messages(alice, 'never-used')).body).toEqual({ messages: [], total: 0 });
  });

  it('validates paging and needs a key', async () => {
    expect((await messages(alice, 'list', '?limit=0')).status).toBe(422);
    expect((await messages(alice, 'list', '?agent_id=abc')).body.detail[0].loc).toEqual(['query', 'agent_id']);
    expect((await messages(alice, 'x'.repeat(201))).body.detail[0].loc).toEqual(['path', 'session_id']);
    expect((await request(f.t.app).get('/v3/inference/sessions/list/messages')).status).toBe(403);
  });
});

it('an unknown feature type is skipped with a warning naming it and the agent', async () => {
  const agentId = await f.agent(alice, {
    llm_credential_id: await f.credential(alice, 'openai'),
    features: [{ type: 'TELEPATHY', config: {}, priority: 1 }, ...memory()],
  });
  expect((await f.chat(alice, { agent_id: agentId, session_id: 'feat', message: 'hi' })).status).toBe(200);
  const warning = f.t.lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.feature_type === 'TELEPATHY');
  expect(warning).toMatchObject({ level: 'warn', message: 'unknown agent feature ignored', agent_id: Number(agentId) });
});
