import { createNoopMeter, type Attributes, type MeterProvider, type Counter as OtelCounter } from '@opentelemetry/api';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * What tracing did with the spans it ended: exported, or dropped (the export queue was full, or the collector could
 * not be reached or refused them). Created unregistered; `registerTracingMetrics` adds them to a service's registry.
 */
const exported = new Counter({
  name: 'tracing_spans_exported_total',
  help: 'Spans sent to the trace collector.',
  registers: [],
});
const dropped = new Counter({
  name: 'tracing_spans_dropped_total',
  help: 'Spans dropped: the export queue was full (queue_full) or the collector did not take them (the error).',
  labelNames: ['reason'],
  registers: [],
});
/** The batch processor's report of its queue, read when the gauge is scraped. */
let observeQueue: ((result: { observe(value: number): void }) => void) | undefined;
const queued = new Gauge({
  name: 'tracing_span_queue_size',
  help: 'Ended spans waiting to be exported.',
  registers: [],
  collect() {
    observeQueue?.({ observe: (value) => this.set(value) });
  },
});

/** Adds tracing's counters to a service's registry (they read 0 while tracing is off). */
export function registerTracingMetrics(registry: Registry): void {
  const metrics = {
    tracing_spans_exported_total: exported,
    tracing_spans_dropped_total: dropped,
    tracing_span_queue_size: queued,
  };
  for (const [name, metric] of Object.entries(metrics)) {
    if (!registry.getSingleMetric(name)) registry.registerMetric(metric);
  }
}

/** Spans dropped so far, whatever the reason (tests and the benchmark read it). */
export async function droppedSpans(): Promise<number> {
  const value = await dropped.get();
  return value.values.reduce((sum, v) => sum + v.value, 0);
}

/** Spans exported so far. */
export async function exportedSpans(): Promise<number> {
  return (await exported.get()).values[0]?.value ?? 0;
}

/** The SDK's own counter of processed spans (semantic conventions), as the batch processor reports it. */
const PROCESSED = 'otel.sdk.processor.span.processed';
const QUEUE_SIZE = 'otel.sdk.processor.span.queue.size';

/**
 * A meter provider that receives only the batch span processor's self-observation (spans processed, with
 * `error.type` when they were dropped, and its queue size) and turns it into the counters above; every other
 * instrument is a no-op. This keeps the OpenTelemetry metrics SDK out of the services: their metrics are prom-client's.
 */
export function spanProcessorMeterProvider(): MeterProvider {
  const noop = createNoopMeter();
  const meter = Object.create(noop) as typeof noop;
  meter.createCounter = (name, options) => {
    if (name !== PROCESSED) return noop.createCounter(name, options);
    const counter: OtelCounter = {
      add(value: number, attrs?: Attributes) {
        const reason = attrs?.['error.type'];
        if (reason === undefined) exported.inc(value);
        else dropped.inc({ reason: typeof reason === 'string' ? reason : JSON.stringify(reason) }, value);
      },
    };
    return counter;
  };
  meter.createObservableUpDownCounter = (name, options) => {
    const observable = noop.createObservableUpDownCounter(name, options);
    if (name !== QUEUE_SIZE) return observable;
    return {
      addCallback(cb) {
        observeQueue = (result) => void cb({ observe: (value: number) => result.observe(value) });
      },
      removeCallback() {
        observeQueue = undefined;
      },
    };
  };
  return { getMeter: () => meter };
}
