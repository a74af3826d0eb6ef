import request from 'supertest';

import { ragBody, startRagApp, type RagTestApp } from './helpers';

let t: RagTestApp;
let key: string;

beforeAll(async () => {
  t = await startRagApp({ secret: null });
  key = await t.dbs.mintKey({ user_id: 'erin', org_id: 'acme' });
});
afterAll(() => t.close());

it('answers 503 when a credential id of ours cannot be checked, and stores nothing', async () => {
  const res = await request(t.app)
    .post('/v3/rag/')
    .set('x-api-key', key)
    .send(ragBody({ llm_credential_id: 'b'.repeat(24) }));
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ detail: 'Service unavailable' });
  expect((await request(t.app).get('/v3/rag/').set('x-api-key', key)).body.total).toBe(0);
});

it('still serves configurations whose credential ids are not ours', async () => {
  expect((await request(t.app).post('/v3/rag/').set('x-api-key', key).send(ragBody())).status).toBe(200);
});
