import { Joi, commonEnv, type CommonConfig } from '@platform/config';

/** Every environment variable the worker reads. */
export const configSchema = Joi.object({
  PORT: Joi.number().port().default(3008).description('HTTP port (health, readiness, metrics).'),
  MONGODB_DB: Joi.string().default('scheduler').description("The scheduler's database: the worker is its second process."),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }).default('redis://127.0.0.1:6379').description('Redis of the queues.'),
  QUEUE_PREFIX: Joi.string().pattern(/^[A-Za-z0-9:_-]{1,64}$/).default('bull').description('Redis key prefix of the queues (same as the scheduler’s).'),
  AGENT_SERVICE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).required().description('Base URL of the agent service.'),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .min(32)
    .required()
    .description("Shared secret that lets the worker run an agent on its owner's behalf (same value as the agent service's)."),
  AGENT_RUN_TIMEOUT_MS: Joi.number().integer().min(1000).max(900_000).default(180_000).description('Timeout of one agent run.'),
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(256).default(8).description('Runs processed at once by this process.'),
  JOB_LOCK_MS: Joi.number().integer().min(1000).max(600_000).default(60_000).description('Job lock; a dead worker’s job is redelivered after it.'),
  STALLED_INTERVAL_MS: Joi.number().integer().min(500).max(600_000).default(30_000).description('How often stalled jobs are looked for.'),
  LIVENESS_STALE_MS: Joi.number().integer().min(1000).default(30_000).description('/healthz fails when the consumer has not been connected this long.'),
  ...commonEnv,
});

export interface WorkerConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  AGENT_SERVICE_URL: string;
  INTERNAL_SERVICE_SECRET: string;
  AGENT_RUN_TIMEOUT_MS: number;
  WORKER_CONCURRENCY: number;
  JOB_LOCK_MS: number;
  STALLED_INTERVAL_MS: number;
  LIVENESS_STALE_MS: number;
}
