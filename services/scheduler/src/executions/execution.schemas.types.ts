// Generated from execution.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

import type { Execution } from '@platform/scheduling';

export interface ExecutionList {
  executions: Execution[];
  total: number;
}

export interface ExecutionLogsQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
  /**
   * true: succeeded runs; false: failed runs (combined with status, both must hold).
   */
  success?: boolean;
  status?: ('queued' | 'running' | 'succeeded' | 'failed' | 'skipped')[];
  from?: Date;
  to?: Date;
}

export interface ExecutionRecentQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
  /**
   * true: succeeded runs; false: failed runs (combined with status, both must hold).
   */
  success?: boolean;
  status?: ('queued' | 'running' | 'succeeded' | 'failed' | 'skipped')[];
  from?: Date;
  to?: Date;
  agent_id?: string;
  /**
   * How far back the view reaches (from, when given, narrows it).
   */
  hours: number;
}
