import request from 'supertest';

import { startAgentApp, type AgentTestApp } from './helpers';

// Other platform services (the graph service) open an owner's credential on the internal path only.
const SECRET = 'open-secret-0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const KEY = 'sk-open-test-7f3e9a1c';
const asAlice = { 'x-internal-secret': SECRET, 'x-on-behalf-of-user': 'alice', 'x-on-behalf-of-org': 'acme' };
let t: AgentTestApp;
let alice: string;
let credentialId: string;

beforeAll(async () => {
  t = await startAgentApp({ internalSecret: SECRET });
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  const created = await request(t.app)
    .post('/v3/providers/credentials')
    .set('x-api-key', alice)
    .send({ name: 'OpenAI', provider_id: 'openai', credentials: { api_key: KEY, base_url: 'http://llm.example/v1' } });
  expect(created.status).toBe(201);
  credentialId = created.body.credential_id;
});
afterAll(() => t.close());

const open = (id: string, headers: Record<string, string>) => {
  const req = request(t.app).post(`/v3/providers/credentials/${id}/open`);
  for (const [k, v] of Object.entries(headers)) req.set(k, v);
  return req;
};

it('on the internal path, on behalf of the owner, the key comes back unsealed and is never logged', async () => {
  const res = await open(credentialId, asAlice);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    credential_id: credentialId,
    provider_id: 'openai',
    api_key: KEY,
    base_url: 'http://llm.example/v1',
  });
  expect(t.lines.join('\n')).not.toContain(KEY);
});

it("the owner's own API key does not see the route at all", async () => {
  const res = await open(credentialId, { 'x-api-key': alice });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ detail: 'Not Found' });
});

it("on behalf of another owner, alice's credential is not found", async () => {
  const res = await open(credentialId, { ...asAlice, 'x-on-behalf-of-user': 'bob' });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ detail: 'Credential not found' });
});

it('a wrong secret → 403, nothing opened', async () => {
  const res = await open(credentialId, { ...asAlice, 'x-internal-secret': 'not-the-secret-of-this-platform-at-all' });
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ detail: 'Invalid Permission' });
  expect(JSON.stringify(res.body)).not.toContain(KEY);
});

it.each([
  ['an unknown id', '0123456789abcdef01234567'],
  ['a malformed id', 'not-an-id'],
])('%s → 404 Credential not found', async (_n, id) => {
  const res = await open(id, asAlice);
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ detail: 'Credential not found' });
});
