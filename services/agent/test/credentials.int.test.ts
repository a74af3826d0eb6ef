import request from 'supertest';

import { startAgentApp, type AgentTestApp } from './helpers';

let t: AgentTestApp;
let alice: string;
let bob: string;
let aliceElsewhere: string;
const SECRET = 'sk-live-4f9c2b7e1d0a8c6e5b3a2f1e0d9c8b7a';

beforeAll(async () => {
  t = await startAgentApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
});
afterAll(() => t.close());

const body = {
  name: 'My OpenAI',
  provider_id: 'openai',
  credentials: { api_key: SECRET, base_url: 'https://api.example.test/v1' },
};
const createCredential = (key = alice, b: object = body) =>
  request(t.app).post('/v3/providers/credentials').set('x-api-key', key).send(b);

it('creates (201 {credential_id}), lists and reads with the secret masked, deletes (204)', async () => {
  const created = await createCredential();
  expect(created.status).toBe(201);
  expect(created.body).toEqual({
    message: 'Credential created successfully',
    credential_id: expect.stringMatching(/^[0-9a-f]{24}$/),
  });
  const id = created.body.credential_id;

  const got = await request(t.app).get(`/v3/providers/credentials/${id}`).set('x-api-key', alice);
  expect(got.status).toBe(200);
  expect(got.body).toEqual({
    credential_id: id,
    name: 'My OpenAI',
    provider_id: 'openai',
    type: 'llm',
    credentials: { api_key: '***', base_url: 'https://api.example.test/v1' },
    meta_data: {},
    created_at: expect.any(String),
    updated_at: null,
  });

  const list = await request(t.app).get('/v3/providers/credentials/').set('x-api-key', alice);
  expect(list.status).toBe(200);
  expect(list.body.total).toBeGreaterThanOrEqual(1);
  expect(list.body.credentials.find((c: { credential_id: string }) => c.credential_id === id).credentials.api_key).toBe(
    '***',
  );

  expect((await request(t.app).delete(`/v3/providers/credentials/${id}`).set('x-api-key', alice)).status).toBe(204);
  expect((await request(t.app).get(`/v3/providers/credentials/${id}`).set('x-api-key', alice)).status).toBe(404);
});

it('the api_key appears in no response, no log line, and not in plaintext in the stored document', async () => {
  const responses: string[] = [];
  const created = await createCredential();
  responses.push(JSON.stringify(created.body));
  const id = created.body.credential_id;
  responses.push((await request(t.app).get(`/v3/providers/credentials/${id}`).set('x-api-key', alice)).text);
  responses.push((await request(t.app).get('/v3/providers/credentials').set('x-api-key', alice)).text);
  // a failing request carrying the secret must not echo it either
  responses.push((await createCredential(alice, { ...body, name: 5 })).text);
  for (const text of responses) expect(text).not.toContain(SECRET);

  for (const line of t.lines) expect(line).not.toContain(SECRET);
  expect(t.lines.length).toBeGreaterThan(0);

  const raw = await t.dbs.conn.collection('credentials').find({}).toArray();
  expect(raw.length).toBeGreaterThan(0);
  const stored = JSON.stringify(raw);
  expect(stored).not.toContain(SECRET);
  expect(stored).not.toContain(Buffer.from(SECRET).toString('base64'));
  expect(raw[0]).toHaveProperty('api_key_sealed', expect.stringMatching(/^v1:/));
});

it('validates the body', async () => {
  const cases: [object, string][] = [
    [{ ...body, name: undefined }, 'body.name'],
    [{ ...body, provider_id: 3 }, 'body.provider_id'],
    [{ ...body, credentials: {} }, 'body.credentials.api_key'],
    [{ ...body, credentials: { api_key: 'k', base_url: 'ftp://x' } }, 'body.credentials.base_url'],
    [{ name: 'x', provider_id: 'openai' }, 'body.credentials'],
  ];
  for (const [b, loc] of cases) {
    const res = await createCredential(alice, b);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(loc);
  }
});

it('another user or org gets 404 on read and delete, and sees none in the list', async () => {
  const id = (await createCredential()).body.credential_id;
  for (const key of [bob, aliceElsewhere]) {
    const got = await request(t.app).get(`/v3/providers/credentials/${id}`).set('x-api-key', key);
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ detail: 'Credential not found' });
    expect((await request(t.app).delete(`/v3/providers/credentials/${id}`).set('x-api-key', key)).status).toBe(404);
    expect((await request(t.app).get('/v3/providers/credentials').set('x-api-key', key)).body).toEqual({
      credentials: [],
      total: 0,
    });
  }
  expect((await request(t.app).get(`/v3/providers/credentials/${id}`).set('x-api-key', alice)).status).toBe(200);
});

it('a malformed credential id is not found', async () => {
  const res = await request(t.app).get('/v3/providers/credentials/not-an-id').set('x-api-key', alice);
  expect(res.status).toBe(404);
});
