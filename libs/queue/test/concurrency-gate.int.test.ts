import { randomBytes } from 'node:crypto';

import { createConcurrencyGate, workerConnection, type GateSlot } from '@platform/queue';
import { testInfra } from '@platform/testing';

// The gate on the real Redis: limits hold across gates (processes) asking at once, waiters start in their order,
// crashed holders and vanished waiters free their places.

const redis = workerConnection(testInfra.redisUrl);
afterAll(async () => {
  await redis.quit();
});

let clock = Date.now();
const prefix = () => `test-${randomBytes(4).toString('hex')}`;
const gateOf = (p: string, leaseMs = 60_000, waitTtlMs = 30_000) =>
  createConcurrencyGate({ redis, prefix: p, leaseMs, waitTtlMs, now: () => clock });
const agent = (limit: number): GateSlot => ({ key: 'agent:a1', limit });

test('at most `limit` holders at once, however many ask together from several gates', async () => {
  const p = prefix();
  const gates = [gateOf(p), gateOf(p), gateOf(p)];
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => gates[i % 3]!.acquire(`h${i}`, [agent(3)], i)),
  );
  expect(answers.filter((a) => a.granted)).toHaveLength(3);
  expect((await gates[0]!.holders('agent:a1')).sort()).toEqual(['h0', 'h1', 'h2']);
  expect(answers[3]).toEqual({ granted: false, position: 0 });
  expect(answers[29]).toEqual({ granted: false, position: 26 });
});

test('waiters start in the order they first asked, not in the order they ask again', async () => {
  const g = gateOf(prefix());
  expect(await g.acquire('first', [agent(1)], 1)).toEqual({ granted: true });
  expect((await g.acquire('w2', [agent(1)], 2)).granted).toBe(false);
  expect((await g.acquire('w3', [agent(1)], 3)).granted).toBe(false);
  expect(await g.release('first', [agent(1)])).toEqual(['w2']);
  // w3 asks before w2 comes back: refused, the place is w2's.
  expect(await g.acquire('w3', [agent(1)], 3)).toEqual({ granted: false, position: 0 });
  expect(await g.acquire('w2', [agent(1)], 2)).toEqual({ granted: true });
  expect(await g.release('w2', [agent(1)])).toEqual(['w3']);
  expect(await g.acquire('w3', [agent(1)], 3)).toEqual({ granted: true });
});

test('a holder needs room in every slot it names; a full webhook holds back a run of a free agent', async () => {
  const g = gateOf(prefix());
  const webhook: GateSlot = { key: 'webhook:w1', limit: 1 };
  expect((await g.acquire('r1', [agent(5), webhook], 1)).granted).toBe(true);
  expect((await g.acquire('r2', [agent(5), webhook], 2)).granted).toBe(false);
  // Another webhook's run of the same agent is not held back by r2's wait on webhook w1... but it is behind r2 in
  // the agent's line only if the agent has no room for both: it has (5).
  expect((await g.acquire('r3', [agent(5), { key: 'webhook:w2', limit: 1 }], 3)).granted).toBe(true);
  expect(await g.holders('agent:a1')).toHaveLength(2);
  expect(await g.release('r1', [agent(5), webhook])).toEqual(['r2']);
  expect((await g.acquire('r2', [agent(5), webhook], 2)).granted).toBe(true);
});

test('asking again while holding is granted (a redelivered job); renew keeps the place past the first lease', async () => {
  const g = gateOf(prefix(), 1_000);
  expect((await g.acquire('h', [agent(1)], 1)).granted).toBe(true);
  expect((await g.acquire('h', [agent(1)], 1)).granted).toBe(true);
  clock += 800;
  await g.renew('h', [agent(1)]);
  clock += 800; // past the first lease, within the renewed one
  expect((await g.acquire('other', [agent(1)], 2)).granted).toBe(false);
  clock += 1_000; // the holder died: its lease ends, the waiter gets the place
  expect((await g.acquire('other', [agent(1)], 2)).granted).toBe(true);
});

test('a waiter that stops asking loses its place after the wait TTL', async () => {
  const g = gateOf(prefix(), 60_000, 5_000);
  expect((await g.acquire('h', [agent(1)], 1)).granted).toBe(true);
  expect((await g.acquire('gone', [agent(1)], 2)).granted).toBe(false);
  expect((await g.acquire('late', [agent(1)], 3)).granted).toBe(false);
  await g.release('h', [agent(1)]);
  expect(await g.acquire('late', [agent(1)], 3)).toEqual({ granted: false, position: 0 });
  clock += 6_000; // "gone" did not come back; "late" kept asking
  expect(await g.acquire('late', [agent(1)], 3)).toEqual({ granted: true });
});

test('limits below 1 are refused; no slot grants at once', async () => {
  const g = gateOf(prefix());
  await expect(g.acquire('h', [agent(0)], 1)).rejects.toThrow(RangeError);
  expect(await g.acquire('h', [], 1)).toEqual({ granted: true });
});

test("limits published by a resource's owner are read back as slots, one command for several; removed is no limit", async () => {
  const g = gateOf(prefix());
  await g.setLimit('agent:a1', 3);
  await g.setLimit('webhook:w1', 1);
  expect(await g.limits(['agent:a1', 'webhook:w1', 'webhook:w2'])).toEqual([
    { key: 'agent:a1', limit: 3 },
    { key: 'webhook:w1', limit: 1 },
  ]);
  await g.setLimit('webhook:w1', null);
  expect(await g.limits(['agent:a1', 'webhook:w1'])).toEqual([{ key: 'agent:a1', limit: 3 }]);
  await expect(g.setLimit('agent:a1', 0)).rejects.toThrow(RangeError);
  expect(await g.limits([])).toEqual([]);
});
