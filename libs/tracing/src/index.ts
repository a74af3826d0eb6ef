export { droppedSpans, exportedSpans, registerTracingMetrics } from './metrics';
export { SAMPLER_KINDS, TracingConfigError, tracingSettings, type TracingSettings } from './settings';
export { traceIncoming, traceOutgoing, type OutgoingDone } from './http-spans';
export { tracingEnabled } from './state';
export { startTracing, startTracingOrExit, stopTracing } from './setup';
export {
  activeTraceparent,
  annotate,
  contextOf,
  currentTraceIds,
  inJobSpan,
  inSpan,
  recordError,
  recordErrorOnActive,
  recordSpan,
  ROOT_CONTEXT,
  SpanKind,
  withContext,
  type Attributes,
  type Context,
  type QueuedJob,
  type Span,
  type SpanOptions,
} from './spans';
