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
export { createWebhookStats, type WebhookStats } from './webhook-stats';
export { enqueueAgentRun, type EnqueueOptions } from './agent-runs.queue';
