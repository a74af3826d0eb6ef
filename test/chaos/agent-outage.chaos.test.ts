import { testInfra } from '@platform/testing';

import { sleep, startChaosStack } from './chaos-stack';
import { duplicateCalls } from './end-state';

// The agent service, which every webhook run calls, goes away (SIGKILL, requests in flight cut) for 8 s in the
// middle of a burst, then comes back on the same address. Runs that could not reach it are retried with backoff
// and every acknowledged run ends, succeeded, without any restart of the scheduler or the worker.
// Then a provider that hangs: runs of a healthy agent triggered meanwhile must not wait behind the hanging ones
// (contract: retries back off without holding the worker's slots).
const RECOVERY_BOUND_MS = 120_000;

it('agent service killed for 8 s mid-burst: runs acknowledged meanwhile wait for it, and every acknowledged run ends once', async () => {
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: testInfra.redisUrl,
    llmDelayMs: 50,
    // At most 8 runs in flight when the agent service dies: the bound on provider calls made twice below.
    workerEnv: { AGENT_RUN_CONCURRENCY: '8' },
    // Backoff 1, 2, 4, 8, 16 s: six attempts outlast the outage.
    schedulerEnv: { TRIGGER_MAX_ATTEMPTS: '6', RETRY_BACKOFF_MS: '1000' },
  });
  try {
    let stop = () => undefined as void;
    const sending = s.sendUntil(new Promise<void>((r) => (stop = r)), 8);
    await sleep(3_000);
    await s.killAgent();
    const killedAt = Date.now();
    await sleep(8_000);
    const restartingAt = Date.now();
    await s.startAgent();
    const recoveredAt = Date.now();
    await sleep(3_000);
    stop();
    const sent = await sending;
    // The trigger does not need the agent service: every trigger was acknowledged.
    expect(Object.keys(sent.statuses)).toEqual(['202']);
    const end = await s.waitEnded(sent.accepted, recoveredAt + RECOVERY_BOUND_MS);
    const statuses: Record<string, number> = {};
    for (const id of sent.accepted) {
      const st = end.byId.get(id)?.status ?? 'missing';
      statuses[st] = (statuses[st] ?? 0) + 1;
    }
    const retried = sent.accepted.filter((id) => (end.byId.get(id)?.attempt ?? 0) > 1).length;
    const duplicates = duplicateCalls(s.calls);
    // Runs acknowledged while the agent service was away: they could only end after it came back.
    const runs = await s.executions();
    const during = sent.accepted.filter((id) => {
      const at = runs.get(id)?.triggered_at.getTime() ?? 0;
      return at > killedAt && at < restartingAt;
    });
    const waited = during.filter((id) => (runs.get(id)?.finished_at?.getTime() ?? 0) > restartingAt);
    process.stderr.write(
      `chaos agent-down: accepted ${sent.accepted.length} (${during.length} during the outage), ended ${JSON.stringify(statuses)}, ` +
        `runs with attempt > 1: ${retried}, provider calls beyond the first ${duplicates}\n`,
    );
    expect(end.unended).toEqual([]);
    expect(statuses).toEqual({ succeeded: sent.accepted.length });
    // The outage was felt: runs acknowledged during it waited for the agent service and then succeeded.
    expect(during.length).toBeGreaterThan(0);
    expect(waited).toEqual(during);
    // At least once: only calls cut in flight by the kill (at most the worker's concurrency) reach the model again.
    expect(duplicates).toBeLessThanOrEqual(8);
  } finally {
    await s.close();
  }
}, 240_000);

it('a provider that hangs does not starve fresh runs: they end before the hanging ones time out', async () => {
  const HANG_FROM = 1_000;
  const s = await startChaosStack({
    mongoUri: testInfra.mongoUri,
    redisUrl: testInfra.redisUrl,
    // Trigger numbers from HANG_FROM on hang at the provider until the agent's provider time limit ends them.
    llmBehaviour: (n) => (n >= HANG_FROM ? 'hang' : 'answer'),
    agentEnv: { PROVIDER_TIMEOUT_MS: '20000' },
    schedulerEnv: { TRIGGER_MAX_ATTEMPTS: '1' },
  });
  try {
    // Hanging runs, then fresh ones: agent runs have a pool of their own (AGENT_RUN_CONCURRENCY), apart from HTTP
    // calls and large, because each is a wait on the agent service.
    const hanging = await Promise.all(Array.from({ length: 16 }, (_, i) => s.trigger(HANG_FROM + i)));
    await sleep(2_000); // the hanging runs have reached the provider
    const fresh = await Promise.all(Array.from({ length: 8 }, (_, i) => s.trigger(i)));
    const ids = (rs: { status: number; id?: string }[]) => rs.map((r) => r.id!).filter(Boolean);
    expect([...hanging, ...fresh].every((r) => r.status === 202)).toBe(true);
    const end = await s.waitEnded([...ids(hanging), ...ids(fresh)], Date.now() + RECOVERY_BOUND_MS);
    expect(end.unended).toEqual([]);
    const runs = await s.executions();
    const finished = (list: string[]) => list.map((id) => runs.get(id)!.finished_at!.getTime());
    const freshLast = Math.max(...finished(ids(fresh)));
    const hangFirst = Math.min(...finished(ids(hanging)));
    process.stderr.write(
      `chaos provider-hang: fresh runs ended ${Math.round((hangFirst - freshLast) / 1000)} s before the first hanging run\n`,
    );
    expect(ids(fresh).map((id) => runs.get(id)!.status)).toEqual(ids(fresh).map(() => 'succeeded'));
    expect(freshLast).toBeLessThan(hangFirst);
  } finally {
    await s.close();
  }
}, 240_000);
