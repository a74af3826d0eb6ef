import request from 'supertest';

import { mongoose } from '@platform/db';

import { ISO, PUBLIC_BASE_URL, SECRET, startSchedulerApp, WEBHOOK_KEYS, type SchedulerTestApp } from './helpers';

let t: SchedulerTestApp;
let alice: string; // user alice in org acme
let agentId: string;

beforeAll(async () => {
  t = await startSchedulerApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  agentId = await t.createAgent(alice);
}, 60_000);
afterAll(() => t.close(), 30_000);

const create = (key = alice, body: object = { agent_id: agentId, description: 'Orders from the shop' }) =>
  request(t.app).post('/agent-webhooks/').set('x-api-key', key).send(body);

describe('create and get', () => {
  it('answers 201 with exactly the spec fields', async () => {
    const res = await create();
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      agent_id: agentId,
      user_id: 'alice',
      description: 'Orders from the shop',
      webhook_url: `${PUBLIC_BASE_URL}/webhook-trigger/${res.body.id}`,
      secret_key: expect.stringMatching(SECRET),
      is_active: true,
      created_at: expect.stringMatching(ISO),
      updated_at: null,
      last_triggered_at: null,
      last_trigger_success: null,
      trigger_count: 0,
      max_concurrency: null,
      callback_url: null,
    });
    const got = await request(t.app).get(`/agent-webhooks/${res.body.id}`).set('x-api-key', alice);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('answers without the trailing slash too, with no redirect', async () => {
    const res = await request(t.app).post('/agent-webhooks').set('x-api-key', alice).send({ agent_id: agentId });
    expect(res.status).toBe(201);
    expect(res.body.description).toBeNull();
    const list = await request(t.app).get('/agent-webhooks').set('x-api-key', alice);
    expect(list.status).toBe(200);
    const got = await request(t.app).get(`/agent-webhooks/${res.body.id}/`).set('x-api-key', alice);
    expect(got.status).toBe(200);
    const bulk = await request(t.app).post('/agent-webhooks/pause-bulk').set('x-api-key', alice).send([res.body.id]);
    expect(bulk.status).toBe(200);
    expect(bulk.body.paused_count).toBe(1);
  });

  it('drops unknown and server-owned fields', async () => {
    const res = await create(alice, {
      agent_id: agentId,
      id: 'a'.repeat(24),
      user_id: 'mallory',
      secret_key: 'whsec_chosen',
      is_active: false,
      trigger_count: 99,
      created_at: '2000-01-01T00:00:00Z',
      surprise: 'dropped',
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.body).toMatchObject({ user_id: 'alice', is_active: true, trigger_count: 0 });
    expect(res.body.id).not.toBe('a'.repeat(24));
    expect(res.body.secret_key).not.toBe('whsec_chosen');
    expect(res.body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('gives every webhook its own secret, stored only sealed', async () => {
    const a = (await create()).body;
    const b = (await create()).body;
    expect(a.secret_key).not.toBe(b.secret_key);
    const webhooks = t.dbs.conn.collection('webhooks');
    const doc = await webhooks.findOne({ _id: new mongoose.Types.ObjectId(a.id) });
    expect(doc).not.toHaveProperty('secret_key');
    expect(t.box.decrypt(String(doc?.secret_key_sealed))).toBe(a.secret_key);
    const raw = JSON.stringify(await webhooks.find({}).toArray());
    for (const secret of [a.secret_key, b.secret_key]) {
      expect(raw).not.toContain(secret.slice('whsec_'.length));
      for (const line of t.lines) expect(line).not.toContain(secret.slice('whsec_'.length));
    }
  });
});

describe('patch, pause, resume, delete', () => {
  it('PATCH changes only the description and moves updated_at', async () => {
    const { id, secret_key } = (await create()).body;
    const res = await request(t.app).patch(`/agent-webhooks/${id}`).set('x-api-key', alice).send({
      description: 'New text',
      is_active: false,
      secret_key: 'whsec_x',
      agent_id: '999',
      trigger_count: 5,
      extra: 1,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.body).toMatchObject({
      id,
      description: 'New text',
      is_active: true,
      secret_key,
      agent_id: agentId,
      trigger_count: 0,
    });
    expect(res.body.updated_at).toMatch(ISO);

    const cleared = await request(t.app)
      .patch(`/agent-webhooks/${id}`)
      .set('x-api-key', alice)
      .send({ description: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeNull();

    const untouched = await request(t.app).patch(`/agent-webhooks/${id}`).set('x-api-key', alice).send({});
    expect(untouched.status).toBe(200);
    expect(untouched.body).toEqual(cleared.body);
  });

  it('pause and resume answer 200 with the webhook, and are idempotent', async () => {
    const { id } = (await create()).body;
    const paused = await request(t.app).post(`/agent-webhooks/${id}/pause`).set('x-api-key', alice);
    expect(paused.status).toBe(200);
    expect(Object.keys(paused.body).sort()).toEqual(WEBHOOK_KEYS);
    expect(paused.body.is_active).toBe(false);
    expect(paused.body.updated_at).toMatch(ISO);
    const again = await request(t.app).post(`/agent-webhooks/${id}/pause/`).set('x-api-key', alice);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(paused.body); // nothing changed, not even updated_at

    const resumed = await request(t.app).post(`/agent-webhooks/${id}/resume`).set('x-api-key', alice);
    expect(resumed.status).toBe(200);
    expect(resumed.body.is_active).toBe(true);
    const resumedAgain = await request(t.app).post(`/agent-webhooks/${id}/resume`).set('x-api-key', alice);
    expect(resumedAgain.status).toBe(200);
    expect(resumedAgain.body).toEqual(resumed.body);
  });

  it('DELETE answers 204, then the webhook is gone', async () => {
    const { id } = (await create()).body;
    const res = await request(t.app).delete(`/agent-webhooks/${id}`).set('x-api-key', alice);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const gone = await request(t.app).get(`/agent-webhooks/${id}`).set('x-api-key', alice);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Webhook not found' });
    expect((await request(t.app).delete(`/agent-webhooks/${id}`).set('x-api-key', alice)).status).toBe(404);
  });

  it.each(['abc', 'A'.repeat(24), '0'.repeat(23), `${'0'.repeat(24)}0`, 'pause-bulk'])(
    'a path id that is not 24-char lowercase hex (%s) → 404 Webhook not found',
    async (bad) => {
      for (const [method, path] of [
        ['get', `/agent-webhooks/${bad}`],
        ['patch', `/agent-webhooks/${bad}`],
        ['delete', `/agent-webhooks/${bad}`],
        ['post', `/agent-webhooks/${bad}/pause`],
        ['post', `/agent-webhooks/${bad}/resume`],
        ['post', `/agent-webhooks/${bad}/regenerate-secret`],
      ] as const) {
        const res = await request(t.app)[method](path).set('x-api-key', alice).send({});
        expect({ method, status: res.status, body: res.body }).toEqual({
          method,
          status: 404,
          body: { detail: 'Webhook not found' },
        });
      }
    },
  );
});

describe('readiness', () => {
  it('/readyz checks MongoDB and Redis', async () => {
    const res = await request(t.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { mongodb: 'ok', redis: 'ok' } });
  });

  it('/openapi.json describes the webhook routes', async () => {
    const res = await request(t.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/agent-webhooks/', '/agent-webhooks/pause-bulk/']),
    );
  });
});
