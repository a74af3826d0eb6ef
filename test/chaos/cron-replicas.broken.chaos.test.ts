import { cronReplicas } from './cron-replicas';

// The cron suite catches a broken promise: without the executions' unique `fire_key` index, a fire
// queued twice runs twice, which is the duplicate count cron-replicas.chaos.test.ts requires to be 0.
it('with the uniqueness guards dropped, the fires queued twice run twice and the suite would report them', async () => {
  const r = await cronReplicas(10, true);
  expect(r.duplicates).toBeGreaterThan(0);
}, 240_000);
