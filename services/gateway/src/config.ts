import { commonEnv, Joi, type CommonConfig } from '@platform/config';

import { ROUTE_TABLE, type ServiceName } from './routes';

const url = (service: string) =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .description(`Base URL of the ${service} service (e.g. http://${service}:PORT); unset: its paths answer 404.`);

/** The variable naming a service's base URL, e.g. SCHEDULER_URL. */
export const upstreamVariable = (service: ServiceName) => `${service.toUpperCase()}_URL`;

/** Every environment variable the gateway reads. */
export const configSchema = Joi.object<GatewayConfig>({
  PORT: Joi.number().port().default(8080).description('HTTP port of the one host clients use.'),
  UPSTREAM_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1000)
    .max(900_000)
    .default(300_000)
    .description(
      'How long an upstream connection may stay silent (no bytes either way) before the request fails with 504.',
    ),
  ...Object.fromEntries(ROUTE_TABLE.map((r) => [upstreamVariable(r.service), url(r.service)])),
  ...commonEnv,
});

export interface GatewayConfig extends CommonConfig {
  PORT: number;
  UPSTREAM_TIMEOUT_MS: number;
  [variable: `${string}_URL`]: string | undefined;
}
