import { cronReplicas } from './cron-replicas';

// Every fire whose minute passed while the stack ran has exactly one execution, though each first fire is queued
// twice and a worker and a scheduler die; the endpoint may be called twice only for runs the killed worker had in
// flight (at least once), never because a fire ran twice. cron-replicas.broken.chaos.test.ts shows the suite
// catching a broken guard.
it('2 schedulers and 3 workers, one of each killed, each fire queued twice: every fire runs once, none is missed', async () => {
  const r = await cronReplicas(30);
  expect(r.duplicates).toBe(0);
  expect(r.firedFirst).toEqual(r.ids);
  expect(r.firedSecond).toEqual(r.ids);
  // At least once: a call the killed worker made before dying may be made again, at most its concurrency.
  expect(r.extraHits).toBeLessThanOrEqual(8);
}, 240_000);
