import fc from 'fast-check';
import request from 'supertest';

import type { BulkPauseResult } from '../src/webhooks/webhook.types';
import { startSchedulerApp, WEBHOOK_KEYS, type SchedulerTestApp } from './helpers';

let t: SchedulerTestApp;
let alice: string;
let bob: string;
let aliceElsewhere: string;
let agentId: string;

beforeAll(async () => {
  t = await startSchedulerApp();
  alice = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  bob = await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' });
  aliceElsewhere = await t.dbs.mintKey({ user_id: 'alice', org_id: 'globex' });
  agentId = await t.createAgent(alice);
}, 60_000);
afterAll(() => t.close(), 30_000);

const createAs = async (key: string, agent = agentId) =>
  (await request(t.app).post('/agent-webhooks/').set('x-api-key', key).send({ agent_id: agent })).body.id as string;
const createMany = (n: number, key = alice) => Promise.all(Array.from({ length: n }, () => createAs(key)));
const pause = (id: string, key = alice) => request(t.app).post(`/agent-webhooks/${id}/pause`).set('x-api-key', key);
const resume = (id: string, key = alice) => request(t.app).post(`/agent-webhooks/${id}/resume`).set('x-api-key', key);
const bulk = async (ids: string[], key = alice) => {
  const res = await request(t.app).post('/agent-webhooks/pause-bulk/').set('x-api-key', key).send(ids);
  expect(res.status).toBe(200);
  return res.body as BulkPauseResult;
};
const invariant = (r: BulkPauseResult) => r.paused_count + r.already_paused_count + r.not_found_count + r.invalid_count;
const NOWHERE = 'f'.repeat(24);

it('classifies a mix of ids in order, each exactly once', async () => {
  const [a1, a2, a3] = await createMany(3);
  const paused = await createAs(alice);
  await pause(paused!);
  const bobs = await createAs(bob, await t.createAgent(bob));
  const elsewhere = await createAs(aliceElsewhere, await t.createAgent(aliceElsewhere));
  const ids = [a1!, paused, bobs, NOWHERE, 'not-an-id', a1!, 'A'.repeat(24), a2!, elsewhere, '', a3!, NOWHERE, a2!];

  const r = await bulk(ids);
  expect(r).toEqual({
    message: 'Paused 3 of 13 webhooks (3 already paused, 4 not found, 3 invalid)',
    total_requested: 13,
    paused_count: 3, // a1 a2 a3
    already_paused_count: 3, // paused, a1 again, a2 again
    not_found_count: 4, // bob's, nowhere, globex's, nowhere again
    invalid_count: 3, // 'not-an-id', uppercase hex, ''
    paused_webhooks: [expect.any(Object), expect.any(Object), expect.any(Object)],
  });
  expect(invariant(r)).toBe(r.total_requested);
  expect(r.paused_webhooks.map((w) => w.id)).toEqual([a1, a2, a3]);
  for (const w of r.paused_webhooks) {
    expect(Object.keys(w).sort()).toEqual(WEBHOOK_KEYS);
    expect(w.is_active).toBe(false);
  }
  // The same request again: everything found is already paused now.
  const again = await bulk(ids);
  expect(again).toMatchObject({
    paused_count: 0,
    already_paused_count: 6,
    not_found_count: 4,
    invalid_count: 3,
    paused_webhooks: [],
  });
  // Other owners' webhooks were not touched.
  expect((await request(t.app).get(`/agent-webhooks/${bobs}`).set('x-api-key', bob)).body.is_active).toBe(true);
  expect(
    (await request(t.app).get(`/agent-webhooks/${elsewhere}`).set('x-api-key', aliceElsewhere)).body.is_active,
  ).toBe(true);
});

it('an empty array is a valid request with nothing to do', async () => {
  expect(await bulk([])).toEqual({
    message: 'Paused 0 of 0 webhooks',
    total_requested: 0,
    paused_count: 0,
    already_paused_count: 0,
    not_found_count: 0,
    invalid_count: 0,
    paused_webhooks: [],
  });
});

it('overlapping concurrent bulk pauses pause each webhook exactly once across all results', async () => {
  // Several rounds on fresh webhooks: a lost race (two requests both pausing one webhook) shows within a few.
  for (let round = 0; round < 5; round++) {
    const ids = await createMany(20);
    const orders = [ids, [...ids].reverse(), ids, [...ids.slice(10), ...ids.slice(0, 10)]];
    const results = await Promise.all(orders.map((order) => bulk(order)));
    const pausedIds = results.flatMap((r) => r.paused_webhooks.map((w) => w.id));
    expect(pausedIds.sort()).toEqual([...ids].sort());
    expect(results.reduce((n, r) => n + r.paused_count, 0)).toBe(20);
    for (const r of results) {
      expect(invariant(r)).toBe(20);
      expect(r.paused_count + r.already_paused_count).toBe(20);
    }
  }
  const list = await request(t.app).get('/agent-webhooks/?is_active=true&limit=100').set('x-api-key', alice);
  expect(list.body.total).toBe(0);
}, 60_000);

it('property: the counts follow the model and always add up, over random mixes of ids (50 runs)', async () => {
  const pool = await createMany(8);
  const foreign = await createAs(bob, await t.createAgent(bob));
  for (const id of pool) await resume(id);
  const active = new Map(pool.map((id) => [id, true]));

  const entry = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pool) },
    { weight: 1, arbitrary: fc.constant(foreign) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{24}$/) }, // almost surely nobody's
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).filter((s) => !/^[0-9a-f]{24}$/.test(s)) },
  );
  const run = fc.record({ toResume: fc.subarray(pool), ids: fc.array(entry, { maxLength: 100 }) });

  await fc.assert(
    fc.asyncProperty(run, async ({ toResume, ids }) => {
      for (const id of toResume) {
        await resume(id);
        active.set(id, true);
      }
      const expected = { paused: [] as string[], already: 0, notFound: 0, invalid: 0 };
      const seen = new Set<string>();
      for (const id of ids) {
        if (!/^[0-9a-f]{24}$/.test(id)) expected.invalid++;
        else if (!active.has(id)) expected.notFound++;
        else if (seen.has(id) || !active.get(id)) expected.already++;
        else expected.paused.push(id);
        seen.add(id);
      }
      const r = await bulk(ids);
      for (const id of expected.paused) active.set(id, false);
      expect(invariant(r)).toBe(ids.length);
      expect(r.total_requested).toBe(ids.length);
      expect(r.paused_webhooks.map((w) => w.id)).toEqual(expected.paused);
      expect(r.paused_count).toBe(expected.paused.length);
      expect(r.already_paused_count).toBe(expected.already);
      expect(r.not_found_count).toBe(expected.notFound);
      expect(r.invalid_count).toBe(expected.invalid);
    }),
    { numRuns: 50 },
  );
}, 120_000);
