import request from 'supertest';

import { openAiTextReply, privateStore, startLocalServer, type PrivateStore } from '@platform/testing';

import { agentBody, startAgentApp, type AgentTestApp } from './helpers';

// This file runs on a store server of its own, so stopping it disturbs no other test file.
let db: PrivateStore;
let t: AgentTestApp;
let key: string;
/** The app on this file's store (the development store's adapter takes its locks in the store's PostgreSQL). */
const onDb = () => ({ mongoUri: db.uri, connect: { ferretdb: { postgresUrl: db.postgresUrl } } });

beforeAll(async () => {
  db = await privateStore();
  t = await startAgentApp(onDb());
  key = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
}, 60_000);
afterAll(async () => {
  await db.start().catch(() => undefined);
  await t?.close().catch(() => undefined);
  await db.dispose();
}, 60_000);

it('answers 503 within 5 s while the database is down, and recovers when it is back', async () => {
  const created = await request(t.app).post('/v3/agents/').set('x-api-key', key).send(agentBody());
  expect(created.status).toBe(201);
  const id = created.body.id;

  await db.stop();
  const calls = [
    () => request(t.app).get('/v3/agents/').set('x-api-key', key),
    () => request(t.app).get(`/v3/agents/${id}`).set('x-api-key', key),
    () => request(t.app).post('/v3/agents/').set('x-api-key', key).send(agentBody()),
    () => request(t.app).put(`/v3/agents/${id}`).set('x-api-key', key).send(agentBody()),
    () => request(t.app).delete(`/v3/agents/${id}`).set('x-api-key', key),
  ];
  for (const call of calls) {
    const started = Date.now();
    const res = await call();
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service unavailable' });
    expect(Date.now() - started).toBeLessThan(5_000);
  }
  const ready = await request(t.app).get('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toEqual({ mongodb: 'unavailable' });
  expect((await request(t.app).get('/healthz')).status).toBe(200);

  await db.start();
  let status = 0;
  for (let i = 0; i < 60 && status !== 200; i++) {
    status = (await request(t.app).get(`/v3/agents/${id}`).set('x-api-key', key)).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 250));
  }
  expect(status).toBe(200);
  expect((await request(t.app).get('/readyz')).status).toBe(200);
}, 60_000);

it('the database going away while the model answers does not turn a paid answer into a 503: the turn is logged as not stored', async () => {
  let release = () => undefined as void;
  const gate = new Promise<void>((r) => (release = r));
  let asked = () => undefined as void;
  const wasAsked = new Promise<void>((r) => (asked = r));
  const llm = await startLocalServer(async (_req, res) => {
    asked();
    await gate;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(openAiTextReply('late answer')));
  });
  const a = await startAgentApp({ ...onDb(), allowHosts: `127.0.0.1:${llm.port}` });
  try {
    const owner = await a.dbs.mintKey({ user_id: 'carol', org_id: 'acme' });
    const cred = await request(a.app)
      .post('/v3/providers/credentials')
      .set('x-api-key', owner)
      .send({ name: 'local', provider_id: 'openai', credentials: { api_key: 'sk-test', base_url: `${llm.url}/v1` } });
    const agent = await request(a.app)
      .post('/v3/agents/')
      .set('x-api-key', owner)
      .send(agentBody({ llm_credential_id: cred.body.credential_id }));
    const chat = request(a.app)
      .post('/v3/inference/chat/')
      .set('x-api-key', owner)
      .send({ agent_id: String(agent.body.id), session_id: 's1', message: 'hi' })
      .then((r) => r);
    await wasAsked;
    await db.stop();
    release();
    const res = await chat;
    expect(res.status).toBe(200);
    expect(res.body.response).toBe('late answer');
    expect(a.lines.some((l) => l.includes('turn not stored'))).toBe(true);
  } finally {
    await db.start();
    await a.close();
    await llm.close();
  }
}, 60_000);
