import { Joi, commonEnv, type CommonConfig } from '@platform/config';

const KEY_32_BYTES = /^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/;

/** Every environment variable the scheduler service reads. */
export const configSchema = Joi.object({
  PORT: Joi.number().port().default(3001).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('scheduler').description("The scheduler service's own database."),
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379')
    .description('Redis connection string (queues; checked by /readyz).'),
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
  WEBHOOK_SECRET_ENCRYPTION_KEY: Joi.string()
    .required()
    .pattern(KEY_32_BYTES)
    .description('32-byte key (64 hex chars or base64) that encrypts webhook signing secrets at rest (AES-256-GCM).'),
  ...commonEnv,
});

export interface SchedulerServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  REDIS_URL: string;
  PUBLIC_BASE_URL: string;
  AGENT_SERVICE_URL: string;
  AGENT_SERVICE_TIMEOUT_MS: number;
  WEBHOOK_SECRET_ENCRYPTION_KEY: string;
}
