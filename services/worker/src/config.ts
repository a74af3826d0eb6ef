import {
  checkedStringEnv,
  commonEnv,
  encryptionKeyEnv,
  Joi,
  redisUrlSchema,
  type CommonConfig,
} from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';
import { CALLBACK_DELAYS_MS, CALLBACK_TIMEOUT_MS } from '@platform/scheduling';

import { MIN_ADMIN_TOKEN_LENGTH } from './admin/admin-token';

/** Every environment variable the worker reads. */
export const configSchema = Joi.object<WorkerConfig>({
  PORT: Joi.number().port().default(3008).description('HTTP port (health, readiness, metrics).'),
  MONGODB_DB: Joi.string()
    .default('scheduler')
    .description("The scheduler's database: the worker is its second process."),
  REDIS_URL: redisUrlSchema()
    .default('redis://127.0.0.1:6379')
    .description(
      'Redis of the queues. One node (redis://host:port), a Cluster (redis+cluster://host1:port1,host2:port2,...: queue keys hash-tagged) or Sentinel (redis+sentinel://host1:26379,host2:26379/<master name>); rediss… for TLS.',
    ),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('bull')
    .description('Redis key prefix of the queues (same as the scheduler’s).'),
  AGENT_SERVICE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required()
    .description('Base URL of the agent service.'),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .min(32)
    .required()
    .description(
      "Shared secret that lets the worker run an agent on its owner's behalf (same value as the agent service's).",
    ),
  AGENT_RUN_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(900_000)
    .default(180_000)
    .description('Timeout of one agent run.'),
  WORKER_CONCURRENCY: Joi.number()
    .integer()
    .min(1)
    .max(256)
    .default(64)
    .description('HTTP schedule calls processed at once by this process (each is a wait on an endpoint).'),
  AGENT_RUN_CONCURRENCY: Joi.number()
    .integer()
    .min(1)
    .max(1024)
    .default(64)
    .description(
      'Agent runs and inference tasks processed at once by this process. Each is a wait on the agent service (the model works there), ' +
        'so slots are cheap: runs whose provider hangs until its time limit must not hold every slot while fresh runs queue behind them.',
    ),
  JOB_LOCK_MS: Joi.number()
    .integer()
    .min(1000)
    .max(600_000)
    .default(60_000)
    .description('Job lock; a dead worker’s job is redelivered after it.'),
  STALLED_INTERVAL_MS: Joi.number()
    .integer()
    .min(500)
    .max(600_000)
    .default(30_000)
    .description('How often stalled jobs are looked for.'),
  LIVENESS_STALE_MS: Joi.number()
    .integer()
    .min(1000)
    .default(30_000)
    .description('/healthz fails when the consumer has not been connected this long.'),
  SCHEDULE_SECRET_ENCRYPTION_KEY: encryptionKeyEnv(
    "32-byte key (64 hex chars or base64) opening HTTP schedules' header values (same value as the scheduler's).",
  ),
  OUTBOUND_ALLOW_HOSTS: checkedStringEnv(
    parseAllowHosts,
    'Comma-separated host or host:port entries HTTP schedules may call although they are loopback or private.',
  ),
  HTTP_MAX_RESPONSE_BYTES: Joi.number()
    .integer()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(5 * 1024 * 1024)
    .description('Largest response an HTTP schedule reads (its first 64 KiB are stored); larger fails the attempt.'),
  FIRE_CONCURRENCY: Joi.number()
    .integer()
    .min(1)
    .max(512)
    .default(128)
    .description('Cron fires turned into executions at once by this process.'),
  FIRE_DIRECT_RUNS: Joi.number()
    .integer()
    .min(0)
    .max(4096)
    .default(256)
    .description(
      "HTTP schedules' runs whose first attempt their fire makes itself, at once (0: every run goes through http-calls).",
    ),
  STORE_RETRY_BASE_MS: Joi.number()
    .integer()
    .min(50)
    .max(60_000)
    .default(1_000)
    .description(
      'First wait of a job while MongoDB, Redis or the agent service is unreachable; doubles per wait (no attempt is spent).',
    ),
  STORE_RETRY_MAX_MS: Joi.number()
    .integer()
    .min(100)
    .max(600_000)
    .default(30_000)
    .description('Longest wait between tries while a store is unreachable.'),
  ENQUEUE_TIMEOUT_MS: Joi.number()
    .integer()
    .min(50)
    .max(30_000)
    .default(5_000)
    .description('How long a fire waits for Redis to take its run before leaving it to the outbox.'),
  CONCURRENCY_RECHECK_MS: Joi.number()
    .integer()
    .min(100)
    .max(300_000)
    .default(5_000)
    .description(
      'A run over its agent’s or webhook’s max_concurrency waits on the queue (queued, holding no worker slot) and asks again after this long, or sooner when a run of that limit ends.',
    ),
  CONCURRENCY_LEASE_MS: Joi.number()
    .integer()
    .min(3_000)
    .max(3_600_000)
    .default(120_000)
    .description(
      'A run’s place under a concurrency limit is renewed every third of this while it runs; a killed worker’s place frees after it.',
    ),
  CALLBACK_RETRY_DELAYS_MS: Joi.string()
    .pattern(/^\d{1,10}(,\d{1,10}){0,3}$/)
    .default(CALLBACK_DELAYS_MS.join(','))
    .description(
      'Waits before the 2nd to 5th attempts of a completion callback (comma-separated ms; the last repeats): 1, 5, 15 and 40 minutes by default.',
    ),
  CALLBACK_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1_000)
    .max(60_000)
    .default(CALLBACK_TIMEOUT_MS)
    .description('How long one completion callback attempt waits for the receiver’s answer.'),
  CALLBACK_CONCURRENCY: Joi.number()
    .integer()
    .min(1)
    .max(512)
    .default(32)
    .description('Completion callbacks delivered at once by this process.'),
  WORKER_ADMIN_TOKEN: Joi.string()
    .min(MIN_ADMIN_TOKEN_LENGTH)
    .empty('')
    .description(
      `Token of the queue dashboard at /admin/queues (at least ${MIN_ADMIN_TOKEN_LENGTH} characters); unset: the dashboard is not served.`,
    ),
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
  AGENT_RUN_CONCURRENCY: number;
  JOB_LOCK_MS: number;
  STALLED_INTERVAL_MS: number;
  LIVENESS_STALE_MS: number;
  SCHEDULE_SECRET_ENCRYPTION_KEY: string;
  OUTBOUND_ALLOW_HOSTS: string;
  HTTP_MAX_RESPONSE_BYTES: number;
  FIRE_CONCURRENCY: number;
  FIRE_DIRECT_RUNS: number;
  ENQUEUE_TIMEOUT_MS: number;
  STORE_RETRY_BASE_MS: number;
  STORE_RETRY_MAX_MS: number;
  CONCURRENCY_RECHECK_MS: number;
  CONCURRENCY_LEASE_MS: number;
  CALLBACK_RETRY_DELAYS_MS: string;
  CALLBACK_TIMEOUT_MS: number;
  CALLBACK_CONCURRENCY: number;
  WORKER_ADMIN_TOKEN?: string;
}
