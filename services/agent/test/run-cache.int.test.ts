import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { connectMongo, pingMongo, syncIndexes, type Connection, type mongoose } from '@platform/db';
import { createOutboundClient, type OutboundClient } from '@platform/outbound';
import { openRedisChangeBus, producerConnection, type ChangeBus, type RedisConnection } from '@platform/queue';
import { createSecretBox } from '@platform/secrets';
import {
  captureLogger,
  createTestDatabases,
  startFakeLlm,
  testInfra,
  uniqueName,
  type FakeLlm,
  type TestDatabases,
} from '@platform/testing';

import { createApp } from '../src/app';
import { agentBody } from './helpers';
import { OPENAI_KEY } from './inference-fixture';

// Two replicas of the agent service over one database and one Redis, as a Deployment with two pods runs them. Each
// caches the agent and credential a run reads; an edit made through either must reach the next run in both.
let dbs: TestDatabases;
let conn: Connection;
let redis: RedisConnection;
let llm: FakeLlm;
let alice: string;
let bob: string;
const buses: ChangeBus[] = [];
const outbounds: OutboundClient[] = [];
const box = createSecretBox(randomBytes(32));
const channel = uniqueName('agent-changed');
/** The collection of every find the replicas sent, in order. */
const finds: string[] = [];
/** The collection of every insert the replicas sent, in order. */
const inserts: string[] = [];
let a: Express;
let b: Express;

function replica(ttlMs: number, bus?: ChangeBus): Express {
  const { logger } = captureLogger('agent');
  const outbound = createOutboundClient({ allowHosts: `127.0.0.1:${llm.port}` });
  outbounds.push(outbound);
  return createApp({
    logger,
    db: conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    box,
    outbound,
    readiness: { mongodb: () => pingMongo(conn) },
    changes: bus,
    cacheTtlMs: ttlMs,
  });
}

function redisBus(): ChangeBus {
  const bus = openRedisChangeBus({ url: testInfra.redisUrl, publisher: redis, channel });
  buses.push(bus);
  return bus;
}

beforeAll(async () => {
  dbs = await createTestDatabases('agent_run_cache');
  conn = await connectMongo({ uri: testInfra.mongoUri, dbName: dbs.conn.name, monitorCommands: true });
  conn.getClient().on('commandStarted', (e: mongoose.mongo.CommandStartedEvent) => {
    if (e.commandName === 'find') finds.push(String(e.command.find));
    if (e.commandName === 'insert') inserts.push(String(e.command.insert));
  });
  redis = producerConnection(testInfra.redisUrl);
  llm = await startFakeLlm('openai');
  alice = await dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  // A long TTL: only the change messages can make these replicas see an edit in time.
  a = replica(600_000, redisBus());
  b = replica(600_000, redisBus());
  await syncIndexes(conn);
  await new Promise((r) => setTimeout(r, 200)); // both subscriptions in place
});
afterAll(async () => {
  await Promise.all(buses.map((x) => x.close()));
  outbounds.forEach((o) => o.close());
  redis.disconnect();
  await llm.close();
  await conn.close();
  await dbs.cleanup();
});

async function newAgent(
  app: Express,
  over: Record<string, unknown> = {},
): Promise<{ agent: string; credential: string }> {
  const cred = await request(app)
    .post('/v3/providers/credentials')
    .set('x-api-key', alice)
    .send({ name: 'local', provider_id: 'openai', credentials: { api_key: OPENAI_KEY, base_url: llm.baseUrl } });
  expect(cred.status).toBe(201);
  const created = await request(app)
    .post('/v3/agents/')
    .set('x-api-key', alice)
    .send(agentBody({ llm_credential_id: cred.body.credential_id, features: [], ...over }));
  expect(created.status).toBe(201);
  return { agent: String(created.body.id), credential: cred.body.credential_id as string };
}

const chat = (app: Express, agentId: string, key = alice) =>
  request(app)
    .post('/v3/inference/chat/')
    .set('x-api-key', key)
    .send({ agent_id: agentId, session_id: 's', message: 'hi' });

/** Chats until `seen` holds for what the provider received (the change message travels through Redis). */
async function eventually(app: Express, agentId: string, seen: () => boolean): Promise<void> {
  for (let i = 0; i < 20 && !seen(); i++) {
    await chat(app, agentId);
    if (!seen()) await new Promise((r) => setTimeout(r, 25));
  }
}

it('a run reads its agent and credential once; later runs of the same agent read neither', async () => {
  const { agent } = await newAgent(a);
  finds.length = 0;
  expect((await chat(a, agent)).status).toBe(200);
  expect(finds.filter((c) => c === 'agents' || c === 'credentials').sort()).toEqual(['agents', 'credentials']);
  finds.length = 0;
  for (let i = 0; i < 3; i++) expect((await chat(a, agent)).status).toBe(200);
  expect(finds.filter((c) => c === 'agents' || c === 'credentials')).toEqual([]);
});

it("a turn is one insert of its two messages; a session's first turn adds one insert of its record", async () => {
  const { agent } = await newAgent(a);
  const turn = (session: string) =>
    request(a)
      .post('/v3/inference/chat/')
      .set('x-api-key', alice)
      .send({ agent_id: agent, session_id: session, message: 'hi' });
  expect((await turn(uniqueName('warm'))).status).toBe(200); // the agent and credential cached from here on
  const session = uniqueName('s');
  inserts.length = 0;
  finds.length = 0;
  expect((await turn(session)).status).toBe(200);
  expect([...inserts].sort()).toEqual(['chat_messages', 'sessions']);
  inserts.length = 0;
  expect((await turn(session)).status).toBe(200);
  expect(inserts).toEqual(['chat_messages']);
  expect(finds).toEqual([]); // memory is not among the agent's features
  const listed = await request(a).get(`/v3/sessions/${session}/messages`).set('x-api-key', alice);
  expect(listed.body.total).toBe(4);
});

it('an agent replaced in one replica is run as replaced by the other, which had it cached', async () => {
  const { agent, credential } = await newAgent(a, { model: 'model-before' });
  expect((await chat(b, agent)).status).toBe(200); // b caches it
  expect(llm.bodies().at(-1)!.model).toBe('model-before');
  const put = await request(a)
    .put(`/v3/agents/${agent}`)
    .set('x-api-key', alice)
    .send(agentBody({ llm_credential_id: credential, features: [], model: 'model-after' }));
  expect(put.status).toBe(200);
  await eventually(b, agent, () => llm.bodies().at(-1)!.model === 'model-after');
  expect(llm.bodies().at(-1)!.model).toBe('model-after');
});

it("a credential's rotated key reaches the provider from the other replica", async () => {
  const { agent, credential } = await newAgent(a);
  expect((await chat(b, agent)).status).toBe(200);
  expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  const rotated = 'sk-rotated-run-cache-0123456789';
  expect(
    (
      await request(a)
        .put(`/v3/providers/credentials/${credential}`)
        .set('x-api-key', alice)
        .send({ credentials: { api_key: rotated } })
    ).status,
  ).toBe(200);
  await eventually(b, agent, () => llm.requests.at(-1)!.headers.authorization === `Bearer ${rotated}`);
  expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${rotated}`);
});

it('an agent or credential deleted in one replica is gone in the other', async () => {
  const first = await newAgent(a);
  expect((await chat(b, first.agent)).status).toBe(200);
  expect((await request(a).delete(`/v3/agents/${first.agent}`).set('x-api-key', alice)).status).toBe(204);
  let res = await chat(b, first.agent);
  for (let i = 0; i < 20 && res.status !== 404; i++) res = await chat(b, first.agent);
  expect(res.status).toBe(404);

  const second = await newAgent(a);
  expect((await chat(b, second.agent)).status).toBe(200);
  expect(
    (await request(a).delete(`/v3/providers/credentials/${second.credential}`).set('x-api-key', alice)).status,
  ).toBe(204);
  res = await chat(b, second.agent);
  for (let i = 0; i < 20 && res.status !== 422; i++) res = await chat(b, second.agent);
  expect(res.status).toBe(422);
  expect(JSON.stringify(res.body)).toContain('credential_not_found');
});

it("another owner never gets a cached agent: bob's run of alice's agent is 404 while alice's is cached", async () => {
  const { agent } = await newAgent(a);
  expect((await chat(a, agent)).status).toBe(200);
  expect((await chat(a, agent, bob)).status).toBe(404);
  expect((await chat(a, agent)).status).toBe(200);
});

it('without change messages, a replica sees an edit once its cached copy is older than the TTL', async () => {
  const lonely = replica(300); // its own in-process bus: nobody else's edits reach it
  const { agent, credential } = await newAgent(a, { model: 'model-before' });
  expect((await chat(lonely, agent)).status).toBe(200);
  const put = await request(a)
    .put(`/v3/agents/${agent}`)
    .set('x-api-key', alice)
    .send(agentBody({ llm_credential_id: credential, features: [], model: 'model-after' }));
  expect(put.status).toBe(200);
  await new Promise((r) => setTimeout(r, 350));
  expect((await chat(lonely, agent)).status).toBe(200);
  expect(llm.bodies().at(-1)!.model).toBe('model-after');
});
