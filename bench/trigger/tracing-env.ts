/**
 * The OTEL_* variables of the benchmarks' service processes (libs/tracing reads them; a process inherits the bench's
 * environment, so each setting is given explicitly, an empty value standing for "unset").
 */

/** Tracing off as `pnpm start` runs the services: no traces endpoint (libs/tracing then starts nothing). */
export const TRACING_OFF: Record<string, string> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
};

/**
 * Tracing on, exporting to `otlpEndpoint` with the given sampler and the default batch settings (OTEL_BSP_* pass
 * through from the bench's environment, to try other ones).
 */
export const tracingOn = (otlpEndpoint: string, sampler: string): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_SDK_DISABLED: '',
  OTEL_TRACES_EXPORTER: '',
  OTEL_SERVICE_NAME: '',
  OTEL_TRACES_SAMPLER: sampler,
  OTEL_TRACES_SAMPLER_ARG: '',
});
