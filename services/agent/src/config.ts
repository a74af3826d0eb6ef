import { Joi, commonEnv, type CommonConfig } from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';

/** Every environment variable the agent service reads. */
export const configSchema = Joi.object({
  PORT: Joi.number().port().default(3002).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('agent').description("The agent service's own database."),
  CREDENTIALS_ENCRYPTION_KEY: Joi.string()
    .required()
    .pattern(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/)
    .description('32-byte key (64 hex chars or base64) that encrypts provider credentials at rest (AES-256-GCM).'),
  PROVIDER_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(600000)
    .default(60000)
    .description('Time limit of one LLM provider call, retries and their waits included; past it the chat answers 502.'),
  OUTBOUND_ALLOW_HOSTS: Joi.string()
    .allow('')
    .default('')
    .custom((value: string) => {
      parseAllowHosts(value);
      return value;
    })
    .description(
      'Comma-separated hosts or host:port pairs that outbound calls may reach although they are loopback or private ' +
        '(e.g. a self-hosted vLLM or Ollama). Everything else non-public is refused.',
    ),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      'Shared secret (32+ chars) with which the worker runs agents on behalf of their owners (x-internal-secret). ' +
        'Unset: that path is off and its headers are refused.',
    ),
  ...commonEnv,
  // Larger than the common 1 MiB: a webhook body of up to 1 MiB becomes a chat message, and escaping it as a JSON
  // string can nearly double it.
  JSON_BODY_LIMIT: Joi.string().default('4mb').description('Largest JSON body; larger → 413. Must exceed twice the 1 MiB webhook body.'),
});

export interface AgentServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  CREDENTIALS_ENCRYPTION_KEY: string;
  PROVIDER_TIMEOUT_MS: number;
  OUTBOUND_ALLOW_HOSTS: string;
  INTERNAL_SERVICE_SECRET?: string;
}
