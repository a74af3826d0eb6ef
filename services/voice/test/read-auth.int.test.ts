import { randomUUID } from 'node:crypto';
import request from 'supertest';

import { ingest, ingestBody, orgKeys, startVoiceApp, type VoiceTestApp } from './helpers';

let t: VoiceTestApp;
let alice: string;
let bob: string;
let globex: string;

beforeAll(async () => {
  t = await startVoiceApp();
  ({ alice, bob, globex } = await orgKeys(t));
});
afterAll(() => t.close());

const get = (key: string, id: string) => request(t.app).get(`/v1/transcripts/${id}`).set('x-api-key', key);

it('the organization reads its transcript, whoever of it stored it', async () => {
  const body = ingestBody();
  await ingest(t.app, alice, body);
  for (const key of [alice, bob]) {
    const res = await get(key, body.sessionId);
    expect(res.status).toBe(200);
    expect(res.body.transcript).toMatchObject({ sessionId: body.sessionId, orgId: 'acme', createdByUserId: 'alice' });
  }
  expect((await get(alice, body.sessionId.toUpperCase())).status).toBe(200);
});

it("another organization's transcript and an unknown one → the same 404 transcript error", async () => {
  const body = ingestBody();
  await ingest(t.app, alice, body);
  const theirs = await get(globex, body.sessionId);
  expect(theirs.status).toBe(404);
  expect(theirs.body).toEqual({
    error: 'Transcript not found.',
    details: `No transcript with sessionId ${body.sessionId} in your organization.`,
  });

  const unknownId = randomUUID();
  const unknown = await get(alice, unknownId);
  expect(unknown.status).toBe(404);
  expect(unknown.body).toEqual({
    error: 'Transcript not found.',
    details: `No transcript with sessionId ${unknownId} in your organization.`,
  });
  // stored under another organization's key, unknown here: the answer names nothing but the id asked for
  expect((await get(globex, unknownId)).body).toEqual(unknown.body);
});

it.each(['not-a-uuid', '12345', '0f8fad5b-d9cb-469f-a165-70867728950', 'zf8fad5b-d9cb-469f-a165-708677289501'])(
  'a session id that is not a UUID (%s) → 422',
  async (id) => {
    const res = await get(alice, id);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['path', 'sessionId'], type: 'string_pattern_mismatch' }),
    ]);
  },
);

describe('403 on every endpoint', () => {
  const sessionId = randomUUID();
  const endpoints: [string, (r: ReturnType<typeof request>) => request.Test][] = [
    ['POST /v1/transcripts', (r) => r.post('/v1/transcripts').send(ingestBody({ sessionId }))],
    ['GET /v1/transcripts', (r) => r.get('/v1/transcripts')],
    ['GET /v1/transcripts/{sessionId}', (r) => r.get(`/v1/transcripts/${sessionId}`)],
    ['GET /v1/transcripts/agent/{agentId}/stats', (r) => r.get('/v1/transcripts/agent/agent-1/stats')],
  ];

  it.each(endpoints)('%s without a key → 403 API key missing', async (_name, call) => {
    const res = await call(request(t.app));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'API key missing' });
  });

  it.each(endpoints)('%s with a malformed, unknown or revoked key → 403 Invalid Permission', async (_name, call) => {
    const revoked = await t.dbs.mintKey({ user_id: 'dave', org_id: 'acme' });
    await t.dbs.revokeKey(revoked);
    for (const key of ['nope', `sk_${'A'.repeat(40)}`, revoked]) {
      const res = await call(request(t.app)).set('x-api-key', key);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Invalid Permission' });
    }
  });

  it('a key in the query string is not accepted; nothing was stored by the refused ingests', async () => {
    const res = await request(t.app).get(`/v1/transcripts?x-api-key=${alice}&api_key=${alice}`);
    expect(res.status).toBe(403);
    expect((await get(alice, sessionId)).status).toBe(404);
  });
});

it('ops endpoints answer without a key', async () => {
  expect((await request(t.app).get('/healthz')).status).toBe(200);
  expect((await request(t.app).get('/readyz')).body).toEqual({ status: 'ready', checks: { mongodb: 'ok' } });
  const doc = await request(t.app).get('/openapi.json');
  expect(Object.keys(doc.body.paths)).toEqual([
    '/v1/transcripts',
    '/v1/transcripts/{sessionId}',
    '/v1/transcripts/agent/{agentId}/stats',
  ]);
  expect((await request(t.app).get('/metrics')).text).toContain('http_request');
});

it.each(['%00', 'a%00b', '%ED%A0%80', '%ZZ'])(
  'a path id %s that does not decode cleanly → 404 before any route',
  async (bad) => {
    for (const path of [`/v1/transcripts/${bad}`, `/v1/transcripts/agent/${bad}/stats`]) {
      const res = await request(t.app).get(path).set('x-api-key', alice);
      expect([path, res.status, res.body]).toEqual([path, 404, { detail: 'Not Found' }]);
    }
  },
);

it('U+0000 in a query parameter → 422 string_nul at it', async () => {
  for (const query of ['agentId=a%00b', 'sort=%00']) {
    const res = await request(t.app).get(`/v1/transcripts?${query}`).set('x-api-key', alice);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['query', query.split('=')[0]], msg: expect.any(String), type: 'string_nul' },
    ]);
  }
});
