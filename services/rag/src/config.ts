import { checkedStringEnv, commonEnv, Joi, type CommonConfig } from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';

/** Every environment variable the rag service reads. */
export const configSchema = Joi.object<RagServiceConfig>({
  PORT: Joi.number().port().default(3003).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('rag').description("The rag service's own database."),
  AGENT_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3002')
    .description('Base URL of the agent service, asked whether a credential id of ours belongs to the caller.'),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      "Shared secret (32+ chars, the agent service's) with which rag asks the agent service on behalf of the caller. " +
        'Unset: credential ids in our format cannot be checked and such requests answer 503.',
    ),
  GRAPH_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3006')
    .description(
      'Base URL of the graph service, which answers GET /v3/rag/{id}/retrieve/ (with INTERNAL_SERVICE_SECRET); its host is always allowed.',
    ),
  GRAPH_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(60000)
    .default(10000)
    .description('Time limit of one retrieval call to the graph service.'),
  AGENT_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(30000)
    .default(5000)
    .description('Time limit of one call to the agent service.'),
  OUTBOUND_ALLOW_HOSTS: checkedStringEnv(
    parseAllowHosts,
    "Comma-separated hosts or host:port pairs that outbound calls may reach although private. AGENT_URL's host is always allowed.",
  ),
  ...commonEnv,
});

export interface RagServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  AGENT_URL: string;
  INTERNAL_SERVICE_SECRET?: string;
  AGENT_TIMEOUT_MS: number;
  GRAPH_URL: string;
  GRAPH_TIMEOUT_MS: number;
  OUTBOUND_ALLOW_HOSTS: string;
}
