import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';

import { spanProcessorMeterProvider } from './metrics';
import type { TracingSettings } from './settings';
import { mongoStatement, redisStatement } from './statements';

function samplerOf(s: TracingSettings['sampler']): Sampler {
  const root = s.kind.endsWith('always_off')
    ? new AlwaysOffSampler()
    : s.kind.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(s.ratio)
      : new AlwaysOnSampler();
  return s.kind.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * The OpenTelemetry SDK set up and registered globally: the tracer provider (sampler, batch processor, OTLP/HTTP
 * exporter), the async-hooks context manager, the W3C propagator, and the MongoDB and Redis instrumentations (HTTP
 * spans are the platform's own: http-spans.ts).
 * Loaded only when tracing is on (setup.ts), so that a process that does not trace does not load the SDK at all.
 */
export function registerSdk(settings: TracingSettings): { shutdown(): Promise<void> } {
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampler),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.url }),
        ...settings.batch,
        selfObsMeterProvider: spanProcessorMeterProvider(),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
      new MongoDBInstrumentation({ requireParentSpan: true, dbStatementSerializer: mongoStatement }),
    ],
  });
  return provider;
}
