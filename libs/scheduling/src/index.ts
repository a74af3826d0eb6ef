export * from './execution.types';
export { execution as executionSchema } from './execution.schemas';
export { executionModel, type ExecutionDoc } from './execution.model';
export { ensureExecutionRetention, RETENTION_INDEX } from './execution.retention';
export { LEGACY_COLLECTIONS, LEGACY_EXECUTION_INDEXES, migrateExecutions } from './execution.migrate';
export { listFilter, NEWEST_RUN_FIRST } from './execution.lists';
export {
  createExecutionRepository,
  executionDocument,
  presentExecution,
  type ExecutionQuery,
  type ExecutionRepository,
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
export {
  enqueueAgentRun,
  enqueueRun,
  executionJobs,
  runQueueOf,
  type EnqueueOptions,
  type RunQueues,
} from './agent-runs.queue';
export { executionRunStore } from './execution.recovery';
export {
  createRunRecovery,
  runJobId,
  type RecoverySweep,
  type RunJobs,
  type RunJobState,
  type RunRecoveryDeps,
  type RunStore,
  type UnfinishedRun,
} from './run-recovery';
export { cronError, firesBetween, nextFire } from './cron';
export { isValidTimeZone } from './zoned-time';
export * from './schedule.types';
export { scheduleModel, type ScheduleDoc } from './schedule.model';
export { createScheduleRepository, type ScheduleRepository } from './schedule.repository';
export {
  addFire,
  createRepeatStrategy,
  fireJobId,
  fireTimeOf,
  firingMatches,
  removeFiring,
  syncFiring,
} from './fires.queue';
export { createReconciler, type ReconcileDeps, type ReconcileReport } from './reconcile';
export { FIRE_GROUP_BUCKETS, fireGroupOf } from './schedule.fire-group';
export { FIRE_READ_TTL_MS, createFireReader, type FireReader, type FireReaderDeps } from './schedule.fire-reader';
export {
  attemptCallback,
  CALLBACK_ATTEMPTS,
  CALLBACK_DELAYS_MS,
  CALLBACK_EVENT,
  CALLBACK_TIMEOUT_MS,
  callbackJobId,
  callbackMessageId,
  enqueueCallback,
  newCallbackSecret,
  signCallback,
  type CallbackAttempt,
} from './callback';
export { callbackDelivery as callbackDeliverySchema } from './execution.schemas';
export type { CallbackDelivery } from './execution.schemas.types';
