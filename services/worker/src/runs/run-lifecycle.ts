import { randomUUID } from 'node:crypto';

import { isUnavailableError, ServiceUnavailableError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { DelayedError, limitKeys, type ConcurrencyGate, type GateSlot, type Job } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord, ExecutionRepository, RunOutcome, RunStats } from '@platform/scheduling';

import type { StoreBackoff } from '../store-wait';
import { RetryableRunError } from './run-errors';

/** What one attempt of a run came to. */
export interface AttemptResult {
  outcome: RunOutcome;
  /** Worth another attempt (a transient failure); a final failure ends the execution at once. */
  retryable: boolean;
}

export interface RunLifecycleDeps {
  executions: ExecutionRepository;
  /** Statistics of the run's origin: `last_trigger_success` of webhooks, `last_run_success` of schedules. */
  stats: { webhooks: RunStats; schedules: RunStats };
  clock: () => Date;
  logger: Logger;
  /** Observes each finished attempt (metrics). */
  onAttempt?: (outcome: 'succeeded' | 'failed' | 'retry', seconds: number) => void;
  /** How long to wait between tries of recording an outcome while the database is away. */
  storeBackoff: StoreBackoff;
  /** Concurrency limits of agents and webhooks (contract §8); unset: none is applied. */
  limits?: RunLimits;
  /** Queues an ended run's completion callback (contract §8; libs/scheduling `enqueueCallback`); unset: none is sent. */
  callbacks?: (exec: ExecutionRecord) => Promise<void>;
}

/** What the run processor needs to hold runs to the published `max_concurrency` of their agent and webhook. */
export interface RunLimits {
  gate: Pick<ConcurrencyGate, 'limits' | 'acquire' | 'renew' | 'release'>;
  /** A run over a limit is parked (delayed, holding no worker slot) this long before it asks again. */
  recheckMs: number;
  /** The gate's lease (a crashed worker's place frees after it); renewed every third of it while the attempt runs. */
  leaseMs: number;
  /** Wakes parked runs (their jobs, by execution id) at once when a place frees, instead of at their next check. */
  wake: (executionIds: string[]) => Promise<void>;
}

/** The limit names of a run: its agent's and its webhook's (`agent:<id>`, `webhook:<id>`). */
export function limitKeysOf(run: { agent_id?: string | null; webhook_id?: string | null }): string[] {
  return [
    ...(run.agent_id ? [limitKeys.agent(run.agent_id)] : []),
    ...(run.webhook_id ? [limitKeys.webhook(run.webhook_id)] : []),
  ];
}

/** What a run job carries: the execution, and the attempt to resume after a store outage interrupted it. */
type RunJobData = AgentRunJob & { resume_attempt?: number };

/**
 * Writes an outcome that is already known (the model or endpoint has answered) until the database takes it: giving
 * up here would run the attempt again. Other errors are not retried.
 */
async function untilStored<R>(
  write: () => Promise<R>,
  backoff: StoreBackoff,
  log: Logger,
  executionId: string,
): Promise<R> {
  for (let tries = 0; ; tries++) {
    try {
      return await write();
    } catch (err) {
      if (!isUnavailableError(err)) throw err;
      const delay = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(tries, 20));
      if (tries === 0 || tries % 10 === 0)
        log.warn('database unreachable; holding the outcome until it can be stored', {
          execution_id: executionId,
          tries: tries + 1,
        });
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * Statistics of the run's origin once it has ended: a webhook's trigger was counted on acceptance, so only its
 * success is left; a schedule's run is counted now, in one write (`last_run_at` = when the fire or run-now was handled).
 */
function recordOutcome(deps: Pick<RunLifecycleDeps, 'stats'>, exec: ExecutionRecord, success: boolean): void {
  if (exec.webhook_id) deps.stats.webhooks.outcome(exec.webhook_id, success);
  if (exec.schedule_id) deps.stats.schedules.ran(exec.schedule_id, new Date(exec.triggered_at), success);
}

/**
 * The life of a run job, whatever it runs: claim the execution (one attempt at a time, none after it ended), run
 * one attempt, then store the outcome once, or put the execution back to `queued` and let BullMQ retry the job
 * after its backoff while attempts remain. Every attempt is logged.
 */
export function createRunProcessor(
  deps: RunLifecycleDeps,
  module: string,
  attempt: (exec: ExecutionRecord) => Promise<AttemptResult>,
) {
  const log = deps.logger.child({ module });
  /** This processor among every worker's: part of each claim it makes (execution.repository.ts `claim`). */
  const processorId = randomUUID();
  /**
   * Who claims a run for this delivery of its job: a claim sent again for the same delivery (its reply was lost, and
   * the job came back after a store wait) is the attempt it already started; a retry of the job, a delivery after a
   * stall or another worker's claims anew.
   */
  const claimantOf = (job: Job<RunJobData>) =>
    `${job.id ?? ''}:${job.attemptsMade}:${job.stalledCounter ?? 0}:${processorId}`;
  /**
   * Queues the callback of a run that ended with one and has no delivery yet. Redis not taking it makes the job wait
   * as for any store (store-wait.ts): it comes back, finds its run ended, and queues the callback then.
   */
  const queueCallback = async (ended: ExecutionRecord | null): Promise<void> => {
    if (!deps.callbacks || !ended?.callback || (ended.delivery?.attempts ?? 0) > 0) return;
    try {
      await deps.callbacks(ended);
    } catch (err) {
      throw new ServiceUnavailableError(err, `completion callback not queued: ${(err as Error).message}`);
    }
  };
  const run = async (job: Job<RunJobData>): Promise<void> => {
    const startedAt = deps.clock();
    // A store error from here to the attempt's answer leaves the job waiting (store-wait.ts) with nothing spent.
    const exec = await deps.executions.claim(job.data.execution_id, startedAt, {
      claimant: claimantOf(job),
      resumeAttempt: job.data.resume_attempt,
    });
    if (!exec) {
      log.info('execution already ended or unknown; nothing to run', { execution_id: job.data.execution_id });
      // Its worker may have stopped between ending the run and queuing its callback (one read, on this rare path).
      if (deps.callbacks) await queueCallback(await deps.executions.get(job.data.execution_id));
      return;
    }
    let result: AttemptResult;
    try {
      result = await attempt(exec);
    } catch (err) {
      // Claimed, but a store (or the agent service in front of its own) was away before the attempt could run:
      // the same attempt resumes when the job comes back.
      if (isUnavailableError(err)) {
        await job.updateData({ ...job.data, resume_attempt: exec.attempt });
        throw err;
      }
      // Anything else (a header value that cannot be opened, a bug) would fail the same way again: the run ends
      // failed now, with the reason, instead of going back to the queue.
      log.error('run attempt threw; ending the run failed', { execution_id: exec.id, err });
      result = {
        retryable: false,
        outcome: {
          success: false,
          response_status: null,
          response_output: null,
          error_message: `worker error: ${(err as Error).message}`,
        },
      };
    }
    const { outcome, retryable } = result;
    const seconds = (deps.clock().getTime() - startedAt.getTime()) / 1000;
    const context = {
      execution_id: exec.id,
      schedule_id: exec.schedule_id,
      webhook_id: exec.webhook_id,
      attempt: exec.attempt,
      of: exec.max_attempts,
    };
    if (!outcome.success && retryable && exec.attempt < exec.max_attempts) {
      await untilStored(
        () => deps.executions.retryLater(exec.id, exec.attempt, outcome),
        deps.storeBackoff,
        log,
        exec.id,
      );
      deps.onAttempt?.('retry', seconds);
      log.warn('run attempt failed; will retry', {
        ...context,
        status: outcome.response_status,
        error: outcome.error_message,
      });
      throw new RetryableRunError(outcome.error_message ?? 'failed');
    }
    const done = await untilStored(
      () => deps.executions.finish(exec.id, exec.attempt, outcome, deps.clock(), startedAt),
      deps.storeBackoff,
      log,
      exec.id,
    );
    if (done) recordOutcome(deps, done, outcome.success);
    await queueCallback(done);
    deps.onAttempt?.(outcome.success ? 'succeeded' : 'failed', seconds);
    const line = {
      ...context,
      status: outcome.response_status,
      seconds,
      ...(outcome.success ? {} : { error: outcome.error_message }),
    };
    if (outcome.success) log.info('run attempt succeeded', line);
    else log.warn('run attempt failed; final', line);
  };
  const limits = deps.limits;
  if (!limits) return (job: Job<RunJobData>, _token?: string): Promise<void> => run(job);

  /** The run's slots (one MGET) and its arrival; jobs queued before they carried ids read the execution. */
  async function slotsOf(job: Job<RunJobData>): Promise<{ slots: GateSlot[]; arrival: number }> {
    let ids: { agent_id?: string | null; webhook_id?: string | null } = job.data;
    let arrival = job.data.triggered_ms;
    if (arrival === undefined) {
      const exec = await deps.executions.get(job.data.execution_id);
      if (!exec) return { slots: [], arrival: 0 };
      ids = exec;
      arrival = Date.parse(exec.triggered_at);
    }
    const keys = limitKeysOf(ids);
    return { slots: keys.length > 0 ? await limits!.gate.limits(keys) : [], arrival };
  }

  /**
   * Before the claim: a run whose agent or webhook publishes a limit takes a place in the gate, or is parked on the
   * queue (delayed, still `queued`, no attempt spent, no worker slot held) until its next check or until a holder
   * ending wakes it. Runs wait in the order they were triggered.
   */
  return async (job: Job<RunJobData>, token?: string): Promise<void> => {
    const { slots, arrival } = await slotsOf(job);
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

/**
 * When BullMQ gives a job up without the run having ended (it stalled more often than allowed: its workers kept
 * dying), the run goes back to `queued` with its attempts as they are, and the recovery rule (libs/scheduling
 * run-recovery) puts it on the queue again under a new job; a run that keeps killing workers is ended there after
 * MAX_RECOVERIES. A final failure of the run itself never reaches this: the processor records it.
 */
export function createGiveUpHandler(deps: Pick<RunLifecycleDeps, 'executions' | 'logger'>) {
  return async (job: Job<AgentRunJob>, reason: string): Promise<void> => {
    if (await deps.executions.release(job.data.execution_id))
      deps.logger.warn('run job given up; left to recovery', { execution_id: job.data.execution_id, reason });
  };
}
