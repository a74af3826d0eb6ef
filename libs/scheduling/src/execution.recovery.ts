import type { ExecutionRepository } from './execution.repository';
import type { ExecutionRecord } from './execution.types';
import type { RunStore } from './run-recovery';

/** Executions as a store of the recovery rule (run-recovery.ts). `onAbandoned` records the end (statistics). */
export function executionRunStore(
  executions: ExecutionRepository,
  onAbandoned?: (exec: ExecutionRecord) => void,
): RunStore {
  return {
    unfinished: (q) => executions.unfinished(q),
    markRecovered: (id, recoveries) => executions.markRecovered(id, recoveries),
    async abandon(id, reason, now) {
      const ended = await executions.abandon(id, reason, now);
      if (ended) onAbandoned?.(ended);
      return ended !== null;
    },
  };
}
