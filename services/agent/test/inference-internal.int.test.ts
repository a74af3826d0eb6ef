import request from 'supertest';

import { OPENAI_KEY, startInferenceFixture, type InferenceFixture } from './inference-fixture';

// The worker runs agents for their owners with x-internal-secret + x-on-behalf-of-user/-org. Nobody else can.
const SECRET = 'worker-secret-5c2d8e1f9a7b3c6d4e0f1a2b3c4d5e6f';
let f: InferenceFixture;
let alice: string;
let bob: string;
let agentId: string;

beforeAll(async () => {
  f = await startInferenceFixture({ internalSecret: SECRET });
  alice = await f.t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await f.t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  agentId = await f.agent(alice, { llm_credential_id: await f.credential(alice, 'openai') });
});
afterAll(() => f.close());

const chatAs = (headers: Record<string, string>, app = f.t.app) => {
  const req = request(app)
    .post('/v3/inference/chat/')
    .send({ agent_id: agentId, session_id: 'run-1', message: 'scheduled run' });
  for (const [k, v] of Object.entries(headers)) req.set(k, v);
  return req;
};
const onBehalfOfAlice = { 'x-on-behalf-of-user': 'alice', 'x-on-behalf-of-org': 'acme' };

const impersonations: [string, () => Record<string, string>][] = [
  ['bob’s valid key naming alice', () => ({ 'x-api-key': bob, ...onBehalfOfAlice })],
  ['bob’s valid key naming alice’s user only', () => ({ 'x-api-key': bob, 'x-on-behalf-of-user': 'alice' })],
  ['no key, on-behalf headers only', () => onBehalfOfAlice],
  ['a wrong secret', () => ({ 'x-api-key': bob, 'x-internal-secret': 'not-the-secret', ...onBehalfOfAlice })],
  ['a truncated secret', () => ({ 'x-internal-secret': SECRET.slice(0, 20), ...onBehalfOfAlice })],
];
it.each(impersonations)('%s → 403 Invalid Permission, nothing run', async (_n, headers) => {
  const before = f.openai.requests.length;
  const res = await chatAs(headers());
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ detail: 'Invalid Permission' });
  expect(f.openai.requests.length).toBe(before);
});

it('with the secret, the run acts as the named owner: her agent, her credential, her memory', async () => {
  const res = await chatAs({ 'x-internal-secret': SECRET, ...onBehalfOfAlice });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ response: 'echo: scheduled run', session_id: 'run-1', agent_id: agentId });
  expect(f.openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  const history = await request(f.t.app).get('/v3/inference/sessions/run-1/messages').set('x-api-key', alice);
  expect(history.body.total).toBe(2);
  expect((await request(f.t.app).get('/v3/inference/sessions/run-1/messages').set('x-api-key', bob)).body.total).toBe(
    0,
  );
});

it('with the secret on behalf of someone else, alice’s agent is not found', async () => {
  const res = await chatAs({ 'x-internal-secret': SECRET, 'x-on-behalf-of-user': 'bob', 'x-on-behalf-of-org': 'acme' });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ detail: 'Agent not found' });
});

it('an app without INTERNAL_SERVICE_SECRET refuses the internal path altogether', async () => {
  const closed = await startInferenceFixture({ internalSecret: null });
  try {
    for (const secret of [SECRET, '']) {
      const res = await chatAs({ 'x-internal-secret': secret, ...onBehalfOfAlice }, closed.t.app);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Invalid Permission' });
    }
  } finally {
    await closed.close();
  }
});

it('neither the secret nor the provider key is logged', () => {
  const all = f.t.lines.join('\n');
  // The run's own line names the owner the internal call acted for.
  const completed = f.t.lines.filter((l) => l.includes('"message":"inference completed"')).map((l) => JSON.parse(l));
  expect(completed).toContainEqual(expect.objectContaining({ on_behalf_of_user: 'alice', on_behalf_of_org: 'acme' }));
  expect(all).not.toContain(SECRET);
  expect(all).not.toContain(OPENAI_KEY);
});
