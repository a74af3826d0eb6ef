import { TracingConfigError, tracingSettings } from '../src/settings';

describe('tracing settings from the OTEL_* variables', () => {
  it('is off without an endpoint, with OTEL_SDK_DISABLED=true and with OTEL_TRACES_EXPORTER=none', () => {
    expect(tracingSettings({}, 'x')).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, 'x')).toBeUndefined();
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingSettings({ ...on, OTEL_SDK_DISABLED: 'TRUE' }, 'x')).toBeUndefined();
    expect(tracingSettings({ ...on, OTEL_TRACES_EXPORTER: 'none' }, 'x')).toBeUndefined();
  });

  it('sends to <endpoint>/v1/traces, or to the traces endpoint as given; defaults as the specification sets them', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, 'worker')).toEqual({
      url: 'http://c:4318/v1/traces',
      serviceName: 'worker',
      sampler: { kind: 'parentbased_always_on', ratio: 1 },
      batch: { scheduledDelayMillis: 1000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMillis: 30000 },
    });
    const own = tracingSettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/otlp/spans',
        OTEL_SERVICE_NAME: 'scheduler-eu',
        OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      'scheduler',
    );
    expect(own).toMatchObject({
      url: 'https://t.example/otlp/spans',
      serviceName: 'scheduler-eu',
      sampler: { kind: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMillis: 200 },
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /is not a URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://c:4317' }, /must be http\(s\)/],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, /ratio from 0 to 1/],
    [{ OTEL_TRACES_SAMPLER_ARG: 'half' }, /ratio from 0 to 1/],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, /OTEL_BSP_MAX_QUEUE_SIZE must be a positive integer/],
    [{ OTEL_BSP_EXPORT_TIMEOUT: '1e3x' }, /OTEL_BSP_EXPORT_TIMEOUT must be a positive integer/],
  ])('refuses %j, saying why', (env, message) => {
    const run = () => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env }, 'x');
    expect(run).toThrow(TracingConfigError);
    expect(run).toThrow(message);
  });
});
