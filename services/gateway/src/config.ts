import { commonEnv, Joi, type CommonConfig } from '@platform/config';

import { ROUTE_TABLE, type ServiceName } from './routes';

/** The base URLs in a `<SERVICE>_URL` value: one, or several separated by commas (the service's replicas). */
export function upstreamList(value: string): URL[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => new URL(part));
}

const url = (service: string) =>
  Joi.string()
    .custom((value: string, helpers) => {
      let urls: URL[];
      try {
        urls = upstreamList(value);
      } catch {
        return helpers.error('string.uri');
      }
      if (urls.length === 0 || urls.some((u) => u.protocol !== 'http:' && u.protocol !== 'https:'))
        return helpers.error('string.uri');
      return value;
    })
    .description(
      `Base URL of the ${service} service (e.g. http://${service}:PORT), or its replicas' base URLs separated by ` +
        'commas (requests go to each in turn; one refusing connections is skipped); unset: its paths answer 404.',
    );

/** The placeholder of `TRACE_UI_URL` that a trace id replaces. */
export const TRACE_ID_PLACEHOLDER = '{trace_id}';

/** The console's link to a trace: `template` with the (URL-encoded) trace id in place of each `{trace_id}`. */
export const traceUrl = (template: string, traceId: string): string =>
  template.split(TRACE_ID_PLACEHOLDER).join(encodeURIComponent(traceId));

const traceUiUrl = Joi.string()
  .allow('')
  .default('')
  .custom((value: string, helpers) => {
    if (value === '') return value;
    const invalid = () => helpers.error('string.traceUiUrl', { placeholder: TRACE_ID_PLACEHOLDER });
    if (!value.includes(TRACE_ID_PLACEHOLDER)) return invalid();
    let parsed: URL;
    try {
      parsed = new URL(traceUrl(value, '0'.repeat(32)));
    } catch {
      return invalid();
    }
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? value : invalid();
  })
  .messages({ 'string.traceUiUrl': '{{#label}} must be an http(s) URL containing {{#placeholder}}' })
  .description(
    "Link from a run's trace id in the operations console to the trace UI: an http(s) URL containing " +
      '`{trace_id}` (e.g. `http://localhost:16686/trace/{trace_id}`); empty: the console shows trace ids unlinked.',
  );

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
  TRACE_UI_URL: traceUiUrl,
  ...commonEnv,
});

export interface GatewayConfig extends CommonConfig {
  PORT: number;
  UPSTREAM_TIMEOUT_MS: number;
  TRACE_UI_URL: string;
  [variable: `${string}_URL`]: string | undefined;
}
