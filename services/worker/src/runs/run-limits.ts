import type { Logger } from '@platform/logger';
import { DelayedError, limitKeys, type GateSlot, type Job } from '@platform/queue';
import type { ExecutionRepository } from '@platform/scheduling';

import type { RunJobData, RunLimits } from './run-lifecycle.types';

/** The limit names of a run: its agent's and its webhook's (`agent:<id>`, `webhook:<id>`). */
export function limitKeysOf(run: { agent_id?: string | null; webhook_id?: string | null }): string[] {
  return [
    ...(run.agent_id ? [limitKeys.agent(run.agent_id)] : []),
    ...(run.webhook_id ? [limitKeys.webhook(run.webhook_id)] : []),
  ];
}

/** The run's slots (one MGET) and its arrival; jobs queued before they carried ids read the execution. */
async function slotsOf(
  limits: RunLimits,
  executions: Pick<ExecutionRepository, 'get'>,
  job: Job<RunJobData>,
): Promise<{ slots: GateSlot[]; arrival: number }> {
  let ids: { agent_id?: string | null; webhook_id?: string | null } = job.data;
  let arrival = job.data.triggered_ms;
  if (arrival === undefined) {
    const exec = await executions.get(job.data.execution_id);
    if (!exec) return { slots: [], arrival: 0 };
    ids = exec;
    arrival = Date.parse(exec.triggered_at);
  }
  const keys = limitKeysOf(ids);
  return { slots: keys.length > 0 ? await limits.gate.limits(keys) : [], arrival };
}

/**
 * Before the claim: a run whose agent or webhook publishes a limit takes a place in the gate, or is parked on the
 * queue (delayed, still `queued`, no attempt spent, no worker slot held) until its next check or until a holder
 * ending wakes it. Runs wait in the order they were triggered.
 */
export function gateRuns(
  limits: RunLimits,
  executions: Pick<ExecutionRepository, 'get'>,
  log: Logger,
  run: (job: Job<RunJobData>) => Promise<void>,
) {
  return async (job: Job<RunJobData>, token?: string): Promise<void> => {
    const { slots, arrival } = await slotsOf(limits, executions, job);
    if (slots.length === 0) return run(job);
    const holder = job.data.execution_id;
    const answer = await limits.gate.acquire(holder, slots, arrival);
    if (!answer.granted) {
      log.debug('run waits for a concurrency limit', {
        execution_id: holder,
        limits: slots.map((s) => `${s.key}=${s.limit}`),
        ahead: answer.position,
      });
      if (token === undefined) throw new Error('concurrency limit reached'); // only a BullMQ worker can park a job
      await job.moveToDelayed(Date.now() + limits.recheckMs, token);
      throw new DelayedError();
    }
    const renew = setInterval(
      () => void limits.gate.renew(holder, slots).catch(() => undefined),
      Math.max(1, Math.floor(limits.leaseMs / 3)),
    );
    renew.unref();
    try {
      await run(job);
    } finally {
      clearInterval(renew);
      // A release that fails leaves the place to its lease; the waiters' own checks go on meanwhile.
      const next = await limits.gate.release(holder, slots).catch(() => [] as string[]);
      if (next.length > 0) await limits.wake(next).catch(() => undefined);
    }
  };
}
