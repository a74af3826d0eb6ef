import { Joi, commonEnv } from '@platform/config';

/** Every environment variable the agent service reads. */
export const configSchema = Joi.object({
  PORT: Joi.number().port().default(3002).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('agent').description("The agent service's own database."),
  CREDENTIALS_ENCRYPTION_KEY: Joi.string()
    .required()
    .pattern(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/)
    .description('32-byte key (64 hex chars or base64) that encrypts provider credentials at rest (AES-256-GCM).'),
  ...commonEnv,
});

export interface AgentServiceConfig {
  PORT: number;
  MONGODB_DB: string;
  CREDENTIALS_ENCRYPTION_KEY: string;
  NODE_ENV: string;
  LOG_LEVEL: string;
  MONGODB_URI: string;
  AUTH_DB: string;
  API_KEY_CACHE_TTL_MS: number;
  DB_SERVER_SELECTION_TIMEOUT_MS: number;
  JSON_BODY_LIMIT: string;
  SHUTDOWN_GRACE_MS: number;
}
