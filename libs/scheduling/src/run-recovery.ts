import type { Logger } from '@platform/logger';

/**
 * One recovery rule for every kind of run that a record in MongoDB stands for and a job in Redis carries (webhook
 * and schedule runs, HTTP calls, and later inference tasks and crawl jobs): a run that has not ended and whose job
 * is not alive is put back on its queue.
 *
 * - A run `queued` for longer than `queuedAfterMs` whose job is missing (Redis was down when it was accepted, or
 *   lost its data) is enqueued under its current job id.
 * - A run whose job is dead (failed or completed while the run had not ended: its worker gave up, crashed past
 *   BullMQ's stall limit, or the store was away when it should have recorded the end), or a run `running` for longer
 *   than `runningAfterMs` whose job is missing, is put back under a new job id (`<id>-r<n>`) and the recovery is
 *   recorded on the run (`recoveries`), so that a second scheduler replica racing the same sweep adds nothing.
 * - A run recovered `maxRecoveries` times is ended as failed rather than retried forever (a run that kills its
 *   worker every time).
 *
 * A run whose job is waiting, delayed, active or prioritized is alive: BullMQ itself redelivers the job of a worker
 * that died (after its lock expires). The model or endpoint may therefore be called again for a run whose worker
 * died mid-call: delivery is at least once, and `attempt` on the run counts every attempt that started.
 */

/** A run that has not ended, as the recovery rule sees it. */
export interface UnfinishedRun {
  id: string;
  status: 'queued' | 'running';
  /** Times the run was put back on its queue under a new job id. */
  recoveries: number;
  /** Which queue carries it (the store's own name for it, e.g. `agent-runs`). */
  queue: string;
}

export interface RunStore {
  /**
   * Runs not ended: queued since before `queuedBefore`, or running since before `runningBefore`; at most `limit`,
   * oldest first, after `cursor` (an opaque position returned as `next`; undefined at the end).
   */
  unfinished(q: {
    queuedBefore: Date;
    runningBefore: Date;
    limit: number;
    cursor?: string;
  }): Promise<{ runs: UnfinishedRun[]; next?: string }>;
  /** Records a recovery if the run has not ended and has been recovered `recoveries` times so far; false otherwise. */
  markRecovered(id: string, recoveries: number, now: Date): Promise<boolean>;
  /** Ends a run that cannot be recovered any more, as failed; false when it had already ended. */
  abandon(id: string, reason: string, now: Date): Promise<boolean>;
}

/**
 * `alive`: waiting, delayed, active or prioritized. `missing`: Redis has no such job. `finished`: completed or
 * failed, a dead job whose id cannot be reused (BullMQ ignores an add under an existing id).
 */
export type RunJobState = 'alive' | 'missing' | 'finished';

export interface RunJobs {
  state(queue: string, jobId: string): Promise<RunJobState>;
  enqueue(run: UnfinishedRun, jobId: string): Promise<unknown>;
}

/** The id of a run's job after `recoveries` recoveries: the run's own id first, then `<id>-r<n>`. */
export const runJobId = (runId: string, recoveries: number) => (recoveries > 0 ? `${runId}-r${recoveries}` : runId);

export interface RunRecoveryDeps {
  store: RunStore;
  jobs: RunJobs;
  clock: () => Date;
  logger: Logger;
  /** A queued run younger than this is left to the request that created it. */
  queuedAfterMs: number;
  /** A running run whose job is missing is recovered once it started this long ago (longer than any run lasts). */
  runningAfterMs: number;
  maxRecoveries: number;
  batch?: number;
}

export interface RecoverySweep {
  checked: number;
  /** Enqueued under their current job id (the job was missing). */
  enqueued: number;
  /** Put back under a new job id. */
  recovered: number;
  abandoned: number;
}

/** The longest a sweeper rests (in sweeps) after rounds that moved nothing. */
const MAX_IDLE_SKIPS = 5;

/**
 * A sweep of the recovery rule, for a timer. Each sweep reads one batch and resumes after it the next time,
 * wrapping around, so a backlog of live runs never hides a lost one; after a round over all unfinished runs that
 * moved nothing, it rests for a growing number of sweeps (up to 5). A sweep stops at the first store or queue
 * failure (the next one retries).
 */
export function createRunRecovery(deps: RunRecoveryDeps) {
  const log = deps.logger.child({ module: 'run-recovery' });
  let running = false;
  let cursor: string | undefined;
  let idle = 0;
  let skip = 0;
  let roundMoved = 0;

  async function recoverOne(run: UnfinishedRun, now: Date, tally: RecoverySweep): Promise<void> {
    const jobId = runJobId(run.id, run.recoveries);
    const state = await deps.jobs.state(run.queue, jobId);
    if (state === 'alive') return;
    if (state === 'missing' && run.status === 'queued') {
      await deps.jobs.enqueue(run, jobId);
      tally.enqueued++;
      return;
    }
    if (run.recoveries >= deps.maxRecoveries) {
      if (await deps.store.abandon(run.id, `abandoned: its job was lost or gave up ${run.recoveries + 1} times`, now)) {
        tally.abandoned++;
        log.warn('run abandoned after repeated recoveries', { run_id: run.id, recoveries: run.recoveries });
      }
      return;
    }
    if (!(await deps.store.markRecovered(run.id, run.recoveries, now))) return;
    const next = { ...run, recoveries: run.recoveries + 1 };
    await deps.jobs.enqueue(next, runJobId(run.id, next.recoveries));
    tally.recovered++;
    log.warn('run recovered under a new job', {
      run_id: run.id,
      status: run.status,
      recoveries: next.recoveries,
      previous_job: state,
    });
  }

  return async (): Promise<RecoverySweep> => {
    const tally: RecoverySweep = { checked: 0, enqueued: 0, recovered: 0, abandoned: 0 };
    if (running) return tally;
    if (skip > 0) {
      skip--;
      return tally;
    }
    running = true;
    try {
      const now = deps.clock();
      const page = await deps.store.unfinished({
        queuedBefore: new Date(now.getTime() - deps.queuedAfterMs),
        runningBefore: new Date(now.getTime() - deps.runningAfterMs),
        limit: deps.batch ?? 200,
        cursor,
      });
      cursor = page.next;
      for (const run of page.runs) {
        tally.checked++;
        await recoverOne(run, now, tally);
      }
      roundMoved += tally.enqueued + tally.recovered + tally.abandoned;
      if (!cursor) {
        idle = roundMoved > 0 ? 0 : Math.min(idle + 1, MAX_IDLE_SKIPS);
        skip = idle > 1 ? idle : 0;
        roundMoved = 0;
      }
    } catch (err) {
      log.warn('recovery sweep stopped', { err: (err as Error).message, ...tally });
    } finally {
      running = false;
    }
    if (tally.enqueued + tally.recovered + tally.abandoned > 0) log.info('recovery sweep', { ...tally });
    return tally;
  };
}
