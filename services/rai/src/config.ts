import { commonEnv, Joi, type CommonConfig } from '@platform/config';

/** Every environment variable the rai service reads. */
export const configSchema = Joi.object<RaiServiceConfig>({
  PORT: Joi.number().port().default(3004).description('HTTP port.'),
  MONGODB_DB: Joi.string().default('rai').description("The rai service's own database."),
  INTERNAL_SERVICE_SECRET: Joi.string()
    .allow('')
    .min(32)
    .description(
      "Shared secret (32+ chars, the agent service's) with which the agent service checks texts on behalf of an agent's owner " +
        '(x-internal-secret). Unset: that path is off, and agents with the RAI feature fail closed (503).',
    ),
  ...commonEnv,
});

export interface RaiServiceConfig extends CommonConfig {
  PORT: number;
  MONGODB_DB: string;
  INTERNAL_SERVICE_SECRET?: string;
}
