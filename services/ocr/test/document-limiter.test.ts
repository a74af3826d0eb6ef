/** The bound on documents read at once: waiting, then 503 with Retry-After. */
import { AppError } from '@platform/errors';

import { createDocumentLimiter } from '../src/extraction/document-limiter';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
};

it('runs at most `concurrency` at once; the next starts when one ends', async () => {
  const limiter = createDocumentLimiter({ concurrency: 2, maxQueued: 5, waitMs: 5_000 });
  const gates = [gate(), gate(), gate()];
  const runs = gates.map((g, i) => limiter.run(async () => (await g.opened, i)));
  await Promise.resolve();
  expect(limiter.load()).toEqual({ running: 2, waiting: 1 });
  gates[0]!.open();
  await runs[0];
  await Promise.resolve();
  expect(limiter.load()).toEqual({ running: 2, waiting: 0 });
  gates[1]!.open();
  gates[2]!.open();
  expect(await Promise.all(runs)).toEqual([0, 1, 2]);
  expect(limiter.load()).toEqual({ running: 0, waiting: 0 });
});

it('a full queue refuses at once, a waiter past waitMs is refused: 503 with Retry-After in whole seconds', async () => {
  const limiter = createDocumentLimiter({ concurrency: 1, maxQueued: 1, waitMs: 1_500 });
  const g = gate();
  const first = limiter.run(() => g.opened);
  const waiting = limiter.run(async () => 'never');
  const refused = await limiter.run(async () => 'x').catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(AppError);
  expect(refused).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
  await expect(waiting).rejects.toMatchObject({ status: 503 });
  expect(limiter.load()).toEqual({ running: 1, waiting: 0 });
  g.open();
  await first;
  expect(limiter.load()).toEqual({ running: 0, waiting: 0 });
});

it('a failing document frees its slot', async () => {
  const limiter = createDocumentLimiter({ concurrency: 1, maxQueued: 0, waitMs: 0 });
  await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await expect(limiter.run(async () => 'next')).resolves.toBe('next');
});
