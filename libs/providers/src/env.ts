import { checkedStringEnv, Joi } from '@platform/config';
import { parseAllowHosts } from '@platform/outbound';

/**
 * The environment of a service that opens owners' credentials through the agent service and calls their providers:
 * where the agent service is, how long a call to it may take, and which private hosts provider calls may reach.
 * `purpose` completes each description with what the service does with it.
 */
export const providerCallerEnv = (purpose: { agent: string; allowHosts: string }) => ({
  AGENT_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:3002')
    .description(`Base URL of the agent service, ${purpose.agent}; its host is always allowed.`),
  AGENT_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(30000)
    .default(5000)
    .description('Time limit of one call to the agent service.'),
  OUTBOUND_ALLOW_HOSTS: checkedStringEnv(
    parseAllowHosts,
    `Comma-separated hosts or host:port pairs that outbound calls may reach although private. ${purpose.allowHosts}`,
  ),
});

export interface ProviderCallerConfig {
  AGENT_URL: string;
  AGENT_TIMEOUT_MS: number;
  OUTBOUND_ALLOW_HOSTS: string;
}
