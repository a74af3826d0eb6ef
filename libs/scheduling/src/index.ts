export * from './execution.types';
export { executionModel, type ExecutionDoc } from './execution.model';
export {
  createExecutionRepository,
  presentExecution,
  type ExecutionQuery,
  type ExecutionRepository,
  type Owner,
} from './execution.repository';
export { createIdempotencyStore, IDEMPOTENCY_WINDOW_MS, type IdempotencyStore } from './idempotency.repository';
export {
  createRunStats,
  createScheduleStats,
  createWebhookStats,
  SCHEDULE_STATS,
  WEBHOOK_STATS,
  type RunStats,
  type StatsFields,
  type WebhookStats,
} from './run-stats';
export { enqueueAgentRun, enqueueRun, type EnqueueOptions, type RunQueues } from './agent-runs.queue';
export { cronError, firesBetween, nextFire } from './cron';
export { isValidTimeZone } from './zoned-time';
export * from './schedule.types';
export { scheduleModel, type ScheduleDoc } from './schedule.model';
export { createScheduleRepository, type ScheduleFilter, type ScheduleRepository } from './schedule.repository';
export { addFire, createRepeatStrategy, fireJobId, fireTimeOf, firingMatches, removeFiring, syncFiring } from './fires.queue';
export { createReconciler, type ReconcileDeps, type ReconcileReport } from './reconcile';
