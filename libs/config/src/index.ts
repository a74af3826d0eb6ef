import Joi from 'joi';

import { redisUrlSchema } from './redis-url';

/** A configuration problem: names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates `env` against a joi object schema whose keys are environment variable names. Every key should carry
 * `.description()`: it is what `describeConfig` prints and what the README's env tables are made from.
 * Unknown variables are ignored; defaults and conversions apply.
 */
export function loadConfig<T>(
  schema: Joi.ObjectSchema<T>,
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
): T {
  const result = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  const { error } = result;
  if (error) {
    throw new ConfigError(
      error.details.map((d) => `${String(d.path.join('.'))}: ${d.message.replace(/^"[^"]*" /, '')}`),
    );
  }
  return result.value;
}

/** One row per variable: name, required, default, description. */
export interface ConfigVariable {
  name: string;
  required: boolean;
  default?: unknown;
  description: string;
}

/** Lists the variables a schema reads (for docs and `--help`). */
export function describeConfig(schema: Joi.ObjectSchema): ConfigVariable[] {
  const desc = schema.describe() as { keys?: Record<string, { flags?: Record<string, unknown> }> };
  return Object.entries(desc.keys ?? {}).map(([name, d]) => ({
    name,
    required: d.flags?.presence === 'required',
    default: d.flags?.default,
    description: typeof d.flags?.description === 'string' ? d.flags.description : '',
  }));
}

/** Renders `describeConfig` as a markdown table. */
export function configTable(schema: Joi.ObjectSchema): string {
  const rows = describeConfig(schema).map(
    (v) =>
      `| \`${v.name}\` | ${v.required ? 'yes' : 'no'} | ${v.default === undefined ? '' : `\`${typeof v.default === 'string' ? v.default : JSON.stringify(v.default)}\``} | ${v.description} |`,
  );
  return ['| Variable | Required | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Loads config or stops the process with a message naming each wrong or missing variable (no stack trace).
 * Only for `main.ts`.
 */
export function loadConfigOrExit<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv, service: string): T {
  try {
    return loadConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${service}: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}

/** Reusable variable definitions shared by every service. */
export const commonEnv = {
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development').description('Runtime mode.'),
  LOG_LEVEL: Joi.string()
    .valid('error', 'warn', 'info', 'http', 'debug')
    .default('info')
    .description('Minimum log level.'),
  MONGODB_URI: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .default('mongodb://127.0.0.1:27017')
    .description("MongoDB connection string (or a MongoDB wire-protocol server's), without a database name."),
  AUTH_DB: Joi.string().default('auth').description('Database holding the shared API keys.'),
  API_KEY_CACHE_TTL_MS: Joi.number()
    .integer()
    .min(0)
    .max(30000)
    .default(30000)
    .description('How long a resolved API key is cached in-process; bounds how long a revoked key keeps working.'),
  DB_SERVER_SELECTION_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(5000)
    .default(3000)
    .description('How long a database call waits for a reachable server before answering 503.'),
  MONGODB_RETRY_WRITES: Joi.boolean()
    .default(true)
    .description(
      "The driver's retryable writes: on a MongoDB replica set a write cut off by a primary election is retried once on the new primary (a standalone server: no effect).",
    ),
  MONGODB_READ_PREFERENCE: Joi.string()
    .valid('primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest')
    .default('primary')
    .description(
      'Which replica-set members reads go to. Keep `primary`: runs are read back right after they are written.',
    ),
  MONGODB_WRITE_CONCERN: Joi.string()
    .pattern(/^(majority|[0-9])$/)
    .default('majority')
    .description(
      'Acknowledgement of writes: `majority` (a write survives the loss of the primary) or a member count such as `1`. Executions (and fires) are written with `majority` whatever it says.',
    ),
  JSON_BODY_LIMIT: Joi.string().default('1mb').description('Largest JSON request body accepted (larger → 413).'),
  SHUTDOWN_GRACE_MS: Joi.number()
    .integer()
    .min(0)
    .default(10000)
    .description('How long SIGTERM waits for in-flight requests.'),
  RATE_LIMIT_PER_KEY_PER_MIN: Joi.number()
    .integer()
    .min(0)
    .default(1200)
    .description(
      'Requests one API key may make per minute on this service (over → 429 with Retry-After); 0 turns the limit off.',
    ),
  RATE_LIMIT_PER_WEBHOOK_PER_MIN: Joi.number()
    .integer()
    .min(0)
    .default(600)
    .description(
      'Trigger calls one webhook accepts per minute (scheduler; over → 429 with Retry-After); 0 turns the limit off.',
    ),
  RATE_LIMIT_REDIS_URL: redisUrlSchema()
    .allow('')
    .default('')
    .description(
      "Redis holding the rate-limit counters, shared by replicas; empty: the service's REDIS_URL if it has one, else counted per process. Redis away: requests pass (fail open).",
    ),
} as const;

/** The values `commonEnv` yields, for a service's config interface to extend. */
export interface CommonConfig {
  NODE_ENV: string;
  LOG_LEVEL: string;
  MONGODB_URI: string;
  AUTH_DB: string;
  API_KEY_CACHE_TTL_MS: number;
  DB_SERVER_SELECTION_TIMEOUT_MS: number;
  MONGODB_RETRY_WRITES?: boolean;
  MONGODB_READ_PREFERENCE?: string;
  MONGODB_WRITE_CONCERN?: string;
  JSON_BODY_LIMIT: string;
  SHUTDOWN_GRACE_MS: number;
  RATE_LIMIT_PER_KEY_PER_MIN?: number;
  RATE_LIMIT_PER_WEBHOOK_PER_MIN?: number;
  RATE_LIMIT_REDIS_URL?: string;
}

export { Joi };

/** A 32-byte key variable (64 hex chars or base64), e.g. for AES-256-GCM secrets at rest. */
export const encryptionKeyEnv = (description: string) =>
  Joi.string()
    .pattern(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/)
    .required()
    .description(description);

/**
 * An optional string variable (default empty) that `check` parses; whatever `check` throws becomes the message
 * naming the variable (e.g. an allow-list of hosts).
 */
export const checkedStringEnv = (check: (value: string) => unknown, description: string) =>
  Joi.string()
    .allow('')
    .default('')
    .custom((value: string) => {
      check(value);
      return value;
    })
    .description(description);

export { MAX_REDIS_NODES, parseRedisUrl, redisUrlSchema, type RedisNode, type RedisTarget } from './redis-url';
