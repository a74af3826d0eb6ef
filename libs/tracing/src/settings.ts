/**
 * Tracing's settings, read from the standard OpenTelemetry variables (the names every OTel SDK reads, so that an
 * operator's existing configuration applies unchanged). Tracing is off when no traces endpoint is set, when
 * `OTEL_SDK_DISABLED=true`, or when `OTEL_TRACES_EXPORTER=none`.
 */
export interface TracingSettings {
  /** The full URL spans are POSTed to (OTLP over HTTP, JSON). */
  url: string;
  serviceName: string;
  sampler: { kind: SamplerKind; ratio: number };
  batch: {
    scheduledDelayMillis: number;
    maxQueueSize: number;
    maxExportBatchSize: number;
    exportTimeoutMillis: number;
  };
}

export const SAMPLER_KINDS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerKind = (typeof SAMPLER_KINDS)[number];

type Env = Record<string, string | undefined>;

/** A setting the operator gave that cannot be used: the process should not start on it. */
export class TracingConfigError extends Error {}

const text = (env: Env, name: string) => env[name]?.trim() || undefined;

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new TracingConfigError(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/** The traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
function tracesUrl(env: Env): string | undefined {
  const own = text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const url = own ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TracingConfigError(`the OTLP traces endpoint "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TracingConfigError(`the OTLP traces endpoint "${url}" must be http(s) (OTLP over HTTP)`);
  return url;
}

function sampler(env: Env): TracingSettings['sampler'] {
  const kind = (text(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(SAMPLER_KINDS as readonly string[]).includes(kind))
    throw new TracingConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLER_KINDS.join(', ')}, got "${kind}"`);
  const rawRatio = text(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = rawRatio === undefined ? 1 : Number(rawRatio);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new TracingConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${rawRatio}"`);
  return { kind: kind as SamplerKind, ratio };
}

/** The settings, or undefined when tracing is off. Throws TracingConfigError on a value it cannot use. */
export function tracingSettings(env: Env, defaultServiceName: string): TracingSettings | undefined {
  if (text(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  if (text(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none') return undefined;
  const url = tracesUrl(env);
  if (url === undefined) return undefined;
  return {
    url,
    serviceName: text(env, 'OTEL_SERVICE_NAME') ?? defaultServiceName,
    sampler: sampler(env),
    batch: {
      scheduledDelayMillis: positiveInt(env, 'OTEL_BSP_SCHEDULE_DELAY', 1_000),
      maxQueueSize: positiveInt(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2_048),
      maxExportBatchSize: positiveInt(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
      exportTimeoutMillis: positiveInt(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
    },
  };
}
