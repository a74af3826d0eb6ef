import {
  checkedStringEnv,
  commonEnv,
  encryptionKeyEnv,
  Joi,
  redisUrlSchema,
  type CommonConfig,
} from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';

/** Every environment variable the scheduler service reads. */
export const configSchema = Joi.object<SchedulerServiceConfig>({
  PORT: Joi.number().port().default(3001).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('scheduler').description("The scheduler service's own database."),
  REDIS_URL: redisUrlSchema()
    .default('redis://127.0.0.1:6379')
    .description(
      'Redis connection string (queues; checked by /readyz). One node (redis://host:port), a Cluster (redis+cluster://host1:port1,host2:port2,...: queue keys hash-tagged) or Sentinel (redis+sentinel://host1:26379,host2:26379/<master name>); rediss… for TLS.',
    ),
  PUBLIC_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3001')
    .description('Public base URL of this service; webhook_url is this plus /webhook-trigger/<id>.'),
  AGENT_SERVICE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required()
    .description('Base URL of the agent service, asked whether an agent exists and belongs to the caller.'),
  AGENT_SERVICE_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(30000)
    .default(5000)
    .description('Timeout of a call to the agent service; past it the request answers 503.'),
  WEBHOOK_SECRET_ENCRYPTION_KEY: encryptionKeyEnv(
    '32-byte key (64 hex chars or base64) that encrypts webhook signing secrets at rest (AES-256-GCM).',
  ),
  SCHEDULE_SECRET_ENCRYPTION_KEY: encryptionKeyEnv(
    "32-byte key (64 hex chars or base64) that encrypts HTTP schedules' header values at rest (the worker's must match).",
  ),
  RECONCILE_INTERVAL_MS: Joi.number()
    .integer()
    .min(1000)
    .max(300_000)
    .default(30_000)
    .description('How often MongoDB schedules are reconciled into Redis (also once at start).'),
  SCHEDULE_CATCH_UP_MS: Joi.number()
    .integer()
    .min(0)
    .max(86_400_000)
    .default(300_000)
    .description(
      'A fire missed while Redis lacked its schedule (data loss, outage) still runs once if it is at most this old; 0: never.',
    ),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('bull')
    .description('Redis key prefix of the queues (same as the worker’s).'),
  TRIGGER_MAX_ATTEMPTS: Joi.number()
    .integer()
    .min(1)
    .max(10)
    .default(3)
    .description('Attempts of a webhook run: 1 + retries of transient failures.'),
  WEBHOOK_CACHE_TTL_MS: Joi.number()
    .integer()
    .min(0)
    .max(60000)
    .default(5000)
    .description(
      'How long a replica uses a cached webhook on the trigger path if the change message of an edit is lost (Redis away); 0 turns the cache off.',
    ),
  ENQUEUE_TIMEOUT_MS: Joi.number()
    .integer()
    .min(50)
    .max(10000)
    .default(1000)
    .description('How long a trigger waits for Redis before leaving its run to the outbox.'),
  RETRY_BACKOFF_MS: Joi.number()
    .integer()
    .min(10)
    .max(600000)
    .default(2000)
    .description('First retry delay of a failed run; doubles per attempt.'),
  OUTBOX_INTERVAL_MS: Joi.number()
    .integer()
    .min(100)
    .max(60000)
    .default(2000)
    .description('How often the recovery rule looks for runs that have not ended and whose job is not alive.'),
  RECOVER_QUEUED_AFTER_MS: Joi.number()
    .integer()
    .min(1000)
    .max(3600000)
    .default(5000)
    .description('A queued run whose job Redis lacks is enqueued once it is this old.'),
  RECOVER_RUNNING_AFTER_MS: Joi.number()
    .integer()
    .min(10000)
    .max(86400000)
    .default(240000)
    .description(
      'A running run whose job is gone is put back on the queue once it started this long ago (longer than any run lasts).',
    ),
  MAX_RECOVERIES: Joi.number()
    .integer()
    .min(1)
    .max(100)
    .default(5)
    .description('A run put back on its queue this many times is ended as failed.'),
  EXECUTION_RETENTION_DAYS: Joi.number()
    .integer()
    .min(0)
    .max(3650)
    .default(30)
    .description(
      'Executions that ended more than this many days ago are removed (a TTL index on finished_at, set to match at start; removal lags by up to a minute); whole days, 1 to 3650; 0 keeps them forever.',
    ),
  OUTBOUND_ALLOW_HOSTS: checkedStringEnv(
    parseAllowHosts,
    "Comma-separated host or host:port entries that callback URLs and HTTP schedules may name as literal IPs although loopback or private (the worker's value: it makes the calls). Any other such address → 422 at create.",
  ),
  ...commonEnv,
});

export interface SchedulerServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  QUEUE_PREFIX: string;
  TRIGGER_MAX_ATTEMPTS: number;
  ENQUEUE_TIMEOUT_MS: number;
  WEBHOOK_CACHE_TTL_MS: number;
  RETRY_BACKOFF_MS: number;
  OUTBOX_INTERVAL_MS: number;
  RECOVER_QUEUED_AFTER_MS: number;
  RECOVER_RUNNING_AFTER_MS: number;
  MAX_RECOVERIES: number;
  REDIS_URL: string;
  PUBLIC_BASE_URL: string;
  AGENT_SERVICE_URL: string;
  AGENT_SERVICE_TIMEOUT_MS: number;
  WEBHOOK_SECRET_ENCRYPTION_KEY: string;
  SCHEDULE_SECRET_ENCRYPTION_KEY: string;
  RECONCILE_INTERVAL_MS: number;
  SCHEDULE_CATCH_UP_MS: number;
  EXECUTION_RETENTION_DAYS: number;
  OUTBOUND_ALLOW_HOSTS: string;
}
