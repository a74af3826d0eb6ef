export { droppedSpans, exportedSpans, registerTracingMetrics } from './metrics';
export { SAMPLER_KINDS, TracingConfigError, tracingSettings, type TracingSettings } from './settings';
export { startTracing, startTracingOrExit, stopTracing } from './setup';
export {
  activeTraceparent,
  annotate,
  contextOf,
  currentTraceIds,
  inJobSpan,
  inSpan,
  markRoute,
  recordError,
  recordErrorOnActive,
  recordSpan,
  ROOT_CONTEXT,
  SpanKind,
  tracingEnabled,
  withContext,
  type Attributes,
  type Context,
  type QueuedJob,
  type Span,
  type SpanOptions,
} from './spans';
