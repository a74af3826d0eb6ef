import { commonEnv, Joi, type CommonConfig } from '@platform/config';
import { providerCallerEnv, type ProviderCallerConfig } from '@platform/providers';

/** Every environment variable the rai service reads. */
export const configSchema = Joi.object<RaiServiceConfig>({
  PORT: Joi.number().port().default(3004).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('rai').description("The rai service's own database."),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      "Shared secret (32+ chars, the agent service's) with which the agent service checks texts on behalf of an agent's owner " +
        "(x-internal-secret), and with which the rai service opens a policy's LLM judge credential at the agent service. " +
        'Unset: both paths are off; agents with the RAI feature fail closed (503) and a policy naming an LLM judge is refused (422).',
    ),
  ...providerCallerEnv({
    agent: "which opens (on behalf of the policy's owner) the credential a policy's LLM judge names",
    allowHosts: "AGENT_URL's host is always allowed. LLM judge providers on private addresses must be listed here.",
  }),
  ...commonEnv,
});

export interface RaiServiceConfig extends CommonConfig, ProviderCallerConfig {
  PORT: number;
  MONGODB_DB: string;
  INTERNAL_SERVICE_SECRET?: string;
}
