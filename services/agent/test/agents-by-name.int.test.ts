/** Contract §7: GET /v3/agents/utility/by-name/{name}, the caller's newest agent with exactly that name. */
import request from 'supertest';

import { agentBody, startAgentApp, type AgentTestApp } from './helpers';
import { expectKeyRequired } from './key-checks';

let t: AgentTestApp;
let alice: string;
let bob: string;
let aliceElsewhere: string;

beforeAll(async () => {
  t = await startAgentApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
});
afterAll(() => t.close());

const byName = (key: string, name: string) =>
  request(t.app)
    .get(`/v3/agents/utility/by-name/${encodeURIComponent(name)}`)
    .set('x-api-key', key);
async function createAgent(key: string, name: string, path = '/v3/agents/'): Promise<string> {
  const res = await request(t.app)
    .post(path)
    .set('x-api-key', key)
    .send(path === '/v3/agents/' ? agentBody({ name }) : { name });
  expect(res.status).toBe(201);
  return String(res.body.id);
}

it('answers {agent_id, id, name} of the newest agent with exactly that name', async () => {
  const older = await createAgent(alice, 'Support bot');
  const newer = await createAgent(alice, 'Support bot');
  await createAgent(alice, 'support bot');
  expect(Number(newer)).toBeGreaterThan(Number(older));
  const res = await byName(alice, 'Support bot');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ agent_id: newer, id: newer, name: 'Support bot' });
  expect((await byName(alice, 'support bot')).body.name).toBe('support bot');
});

it('finds single-task agents and names with slashes, dots and unicode (sent percent-encoded)', async () => {
  const single = await createAgent(alice, 'Summarizer v1.2 / ünïcode ✓', '/v3/agents/template/single-task');
  expect((await byName(alice, 'Summarizer v1.2 / ünïcode ✓')).body).toEqual({
    agent_id: single,
    id: single,
    name: 'Summarizer v1.2 / ünïcode ✓',
  });
  expect((await byName(alice, 'Summarizer.v1.2 / ünïcode ✓')).status).toBe(404);
});

it('a renamed or deleted agent is no longer found by its old name', async () => {
  const id = await createAgent(alice, 'Temporary');
  await request(t.app)
    .put(`/v3/agents/${id}`)
    .set('x-api-key', alice)
    .send(agentBody({ name: 'Permanent' }))
    .expect(200);
  expect((await byName(alice, 'Temporary')).status).toBe(404);
  expect((await byName(alice, 'Permanent')).body.id).toBe(id);
  await request(t.app).delete(`/v3/agents/${id}`).set('x-api-key', alice).expect(204);
  expect((await byName(alice, 'Permanent')).status).toBe(404);
});

it('no agent of that name, or only another owner’s → 404 Agent not found', async () => {
  await createAgent(alice, 'Private bot');
  for (const [key, name] of [
    [alice, 'Nobody'],
    [alice, 'Private'],
    [bob, 'Private bot'],
    [aliceElsewhere, 'Private bot'],
  ] as const) {
    const res = await byName(key, name);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Agent not found' });
  }
});

it('a name longer than any agent can have → 422 at path.name', async () => {
  const res = await byName(alice, 'x'.repeat(201));
  expect(res.status).toBe(422);
  expect(res.body.detail[0]).toMatchObject({ loc: ['path', 'name'], type: 'string_too_long' });
});

it('without a key → 403 API key missing; with an unknown key → 403 Invalid Permission', () =>
  expectKeyRequired(() => request(t.app).get('/v3/agents/utility/by-name/Support%20bot')));
