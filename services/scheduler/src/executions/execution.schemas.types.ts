// Generated from execution.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { Execution } from '@platform/scheduling';

export interface ExecutionList {
  executions: Execution[];
  total: number;
}

export interface ExecutionLogsQuery {
  status?: ('queued' | 'running' | 'succeeded' | 'failed' | 'skipped')[];
  /**
   * true: succeeded runs; false: failed runs (combined with status, both must hold).
   */
  success?: boolean;
  from?: Date;
  to?: Date;
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface ExecutionRecentQuery {
  agent_id?: string;
  /**
   * How far back the view reaches (from, when given, narrows it).
   */
  hours: number;
  status?: ('queued' | 'running' | 'succeeded' | 'failed' | 'skipped')[];
  /**
   * true: succeeded runs; false: failed runs (combined with status, both must hold).
   */
  success?: boolean;
  from?: Date;
  to?: Date;
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface ExecutionReplayAccepted {
  execution_id: string;
  /**
   * queued for a new replay (202); the current status of the first one (200)
   */
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';
  replay_of: string;
}

export interface ExecutionReplayBody {
  status?: ('succeeded' | 'failed' | 'skipped')[];
  from?: Date;
  to?: Date;
  /**
   * Runs to replay at most, newest first (1–1000; more → 422)
   */
  limit: number;
  /**
   * true: only count the matching runs; nothing runs
   */
  dry_run: boolean;
}

export interface ExecutionReplayPath {
  execution_id: string;
}

export interface ExecutionReplayResult {
  /**
   * Ended runs matching the filters (all of them, not only the replayed ones)
   */
  matched: number;
  /**
   * New executions this call made (the others had been replayed within 24 h); absent on a dry run
   */
  created?: number;
  /**
   * One per replayed run, newest run first (at most limit); absent on a dry run
   */
  replayed?: {
    /**
     * The replay (a new run, or the first replay of that run within 24 h)
     */
    execution_id: string;
    /**
     * The run it replays
     */
    replay_of: string;
  }[];
}
