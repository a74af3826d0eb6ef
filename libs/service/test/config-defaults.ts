import { commonEnv, Joi, loadConfig, type CommonConfig } from '@platform/config';

/** The common variables with their defaults, as a service's config would hold them. */
export const commonEnvDefaults: CommonConfig = loadConfig<CommonConfig>(Joi.object(commonEnv), {});
