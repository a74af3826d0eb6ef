import { createServer, type Server } from 'node:http';
import request from 'supertest';

import { freePort } from '@platform/testing';

import { startSchedulerApp, type SchedulerTestApp } from './helpers';

describe('create asks the real agent service', () => {
  let t: SchedulerTestApp;
  let alice: string;
  let bob: string;
  let aliceElsewhere: string;

  beforeAll(async () => {
    t = await startSchedulerApp();
    alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
    aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
  }, 60_000);
  afterAll(() => t.close(), 30_000);

  const create = (key: string, agent_id: string) =>
    request(t.app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id });

  it("accepts the caller's own agent and stores its id as a string", async () => {
    const agentId = await t.createAgent(alice);
    const res = await create(alice, agentId);
    expect(res.status).toBe(201);
    expect(res.body.agent_id).toBe(agentId);
  });

  it('unknown, malformed and other owners’ agents → 404 Agent not found, and nothing is created', async () => {
    const before = (await request(t.app).get('/agent-webhooks/').set('x-api-key', alice)).body.total;
    const bobsAgent = await t.createAgent(bob);
    const globexAgent = await t.createAgent(aliceElsewhere);
    for (const agentId of ['999999999', bobsAgent, globexAgent, 'abc', '0', '-1', '1.5', ' 1', '9007199254740993']) {
      const res = await create(alice, agentId);
      expect({ agentId, status: res.status, body: res.body }).toEqual({
        agentId,
        status: 404,
        body: { detail: 'Agent not found' },
      });
    }
    expect((await request(t.app).get('/agent-webhooks/').set('x-api-key', alice)).body.total).toBe(before);
    expect((await create(bob, bobsAgent)).status).toBe(201);
  });
});

describe('when the agent service cannot answer', () => {
  let stub: Server;
  let stubUrl: string;
  const seenKeys: string[] = [];
  let down: SchedulerTestApp;
  let broken: SchedulerTestApp;

  beforeAll(async () => {
    // A stand-in agent service that misbehaves in the ways a real outage does: 5xx, hangs, odd statuses.
    stub = createServer((req, res) => {
      seenKeys.push(String(req.headers['x-api-key']));
      const id = req.url?.split('/').pop();
      if (id === '1') res.writeHead(500).end('{"detail":"Internal Server Error"}');
      else if (id === '2')
        return; // never answers
      else if (id === '3')
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"detail":"Invalid Permission"}');
      else res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const address = stub.address();
    stubUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    down = await startSchedulerApp({ agentServiceUrl: `http://127.0.0.1:${await freePort()}` });
    broken = await startSchedulerApp({ agentServiceUrl: stubUrl, agentTimeoutMs: 500 });
  }, 60_000);
  afterAll(async () => {
    stub.closeAllConnections();
    await new Promise((resolve) => stub.close(resolve));
    await down.close();
    await broken.close();
  }, 30_000);

  it('a closed port → 503 Service unavailable, fast', async () => {
    const key = await down.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    const started = Date.now();
    const res = await request(down.app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id: '1' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service unavailable' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await request(down.app).get('/agent-webhooks/').set('x-api-key', key)).body.total).toBe(0);
  });

  it.each([
    ['a 5xx', '1'],
    ['no answer within the timeout', '2'],
    ['an unexpected status', '3'],
    ['a redirect', '4'],
  ])('%s → 503 Service unavailable, forwarding the caller’s key', async (_what, agentId) => {
    const key = await broken.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
    const started = Date.now();
    const res = await request(broken.app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id: agentId });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: 'Service unavailable' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seenKeys.at(-1)).toBe(key);
    for (const line of broken.lines) expect(line).not.toContain(key);
  });
});
