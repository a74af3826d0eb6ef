import {
  checkedStringEnv,
  commonEnv,
  encryptionKeyEnv,
  Joi,
  redisUrlSchema,
  type CommonConfig,
} from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';

/** Every environment variable the agent service reads. */
export const configSchema = Joi.object<AgentServiceConfig>({
  PORT: Joi.number().port().default(3002).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('agent').description("The agent service's own database."),
  CREDENTIALS_ENCRYPTION_KEY: encryptionKeyEnv(
    '32-byte key (64 hex chars or base64) that encrypts provider credentials at rest (AES-256-GCM).',
  ),
  PROVIDER_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(600000)
    .default(60000)
    .description(
      'Time limit of one LLM provider call, retries and their waits included; past it the chat answers 502.',
    ),
  TOOL_CALL_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(300000)
    .default(30000)
    .description(
      'Time limit of one tool call to a remote API (execute route and agent runs), redirects included; past it → 502.',
    ),
  TOOL_ENHANCE_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('https://api.openai.com/v1')
    .description('OpenAI-protocol base URL that enhance_descriptions asks (with the openai_api_key sent on import).'),
  TOOL_ENHANCE_MODEL: Joi.string().default('gpt-4o-mini').description('Model that enhance_descriptions asks.'),
  OUTBOUND_ALLOW_HOSTS: checkedStringEnv(
    parseAllowHosts,
    'Comma-separated hosts or host:port pairs that outbound calls may reach although they are loopback or private ' +
      '(e.g. a self-hosted vLLM or Ollama, or an internal tool API). Everything else non-public is refused.',
  ),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      'Shared secret (32+ chars) with which the worker runs agents on behalf of their owners (x-internal-secret). ' +
        'Unset: that path is off and its headers are refused.',
    ),
  RAI_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3004')
    .description(
      'Base URL of the rai service, which the RAI agent feature asks (with INTERNAL_SERVICE_SECRET); its host is always allowed.',
    ),
  RAI_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(60000)
    .default(10000)
    .description('Time limit of one RAI check; past it the chat answers 503.'),
  RAG_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3003')
    .description(
      'Base URL of the rag service, which the KNOWLEDGE_BASE agent feature asks for retrieved knowledge (with INTERNAL_SERVICE_SECRET); its host is always allowed.',
    ),
  RAG_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(60000)
    .default(10000)
    .description('Time limit of one knowledge retrieval; past it the chat answers 503.'),
  REDIS_URL: redisUrlSchema()
    .default('redis://127.0.0.1:6379')
    .description(
      'Redis of the queues (inference tasks go to the worker through it). One node (redis://host:port), a Cluster (redis+cluster://host1:port1,host2:port2,...: queue keys hash-tagged) or Sentinel (redis+sentinel://host1:26379,host2:26379/<master name>); rediss… for TLS.',
    ),
  QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('bull')
    .description('Redis key prefix of the queues (same as the worker’s).'),
  TASK_ATTEMPTS: Joi.number()
    .integer()
    .min(1)
    .max(10)
    .default(3)
    .description('Attempts of an inference task whose failures are transient (provider errors, timeouts).'),
  TASK_ENQUEUE_TIMEOUT_MS: Joi.number()
    .integer()
    .min(50)
    .max(30000)
    .default(3000)
    .description('How long POST /v3/inference/task/ waits for Redis to take the task before answering 503.'),
  AGENT_CACHE_TTL_MS: Joi.number()
    .integer()
    .min(0)
    .max(60000)
    .default(5000)
    .description(
      'How long a replica uses an agent or credential it read for a run without reading it again, if the message of a change ' +
        '(sent to every replica through Redis at each edit) was lost; 0 reads them for every run.',
    ),
  ...commonEnv,
  // Larger than the common 1 MiB: a webhook body of up to 1 MiB becomes a chat message, and escaping it as a JSON
  // string can nearly double it.
  JSON_BODY_LIMIT: Joi.string()
    .default('4mb')
    .description('Largest JSON body; larger → 413. Must exceed twice the 1 MiB webhook body.'),
});

export interface AgentServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  AGENT_CACHE_TTL_MS: number;
  CREDENTIALS_ENCRYPTION_KEY: string;
  PROVIDER_TIMEOUT_MS: number;
  TOOL_CALL_TIMEOUT_MS: number;
  TOOL_ENHANCE_BASE_URL: string;
  TOOL_ENHANCE_MODEL: string;
  OUTBOUND_ALLOW_HOSTS: string;
  INTERNAL_SERVICE_SECRET?: string;
  RAI_URL: string;
  RAI_TIMEOUT_MS: number;
  RAG_URL: string;
  RAG_TIMEOUT_MS: number;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  TASK_ATTEMPTS: number;
  TASK_ENQUEUE_TIMEOUT_MS: number;
}
