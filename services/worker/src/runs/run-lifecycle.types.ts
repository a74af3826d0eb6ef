import type { Logger } from '@platform/logger';
import type { ConcurrencyGate } from '@platform/queue';
import type { AgentRunJob, ExecutionRecord, ExecutionRepository, RunOutcome, RunStats } from '@platform/scheduling';

import type { StoreBackoff } from '../store-wait';

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

/** What a run job carries: the execution, and the attempt to resume after a store outage interrupted it. */
export type RunJobData = AgentRunJob;
