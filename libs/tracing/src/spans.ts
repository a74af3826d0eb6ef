import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TimeInput,
} from '@opentelemetry/api';

import { tracer, tracingEnabled } from './state';

export type { Attributes, Context, Span };
export { SpanKind };

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** The parent: by default the active span; `ROOT_CONTEXT` starts a new trace. */
  parent?: Context;
  startTime?: TimeInput;
}

/** A span that records nothing, handed to `fn` while tracing is off. */
const NO_SPAN = trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 });

/**
 * Runs `fn` inside a new span named `name` (a child of the active span, or of `opts.parent`), ends it when `fn`
 * settles, and records a thrown error on it (see `recordError`). Everything `fn` awaits runs in the span's context, so
 * HTTP calls, database commands and log lines inside belong to it.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn(NO_SPAN);
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { attributes: opts.attributes, kind: opts.kind ?? SpanKind.INTERNAL, startTime: opts.startTime },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A span that already happened (say, a job's wait in the queue: from when it was added to when a worker took it),
 * written with its own start and end times, under `parent`.
 */
export function recordSpan(name: string, parent: Context, start: TimeInput, end: TimeInput, attributes?: Attributes) {
  if (!tracingEnabled()) return;
  tracer().startSpan(name, { startTime: start, attributes }, parent).end(end);
}

/** A job taken from a queue, as `inJobSpan` traces it. */
export interface QueuedJob {
  /** The `traceparent` the job carries: the span that queued it. */
  traceparent?: string;
  /** When it was added (ms). */
  addedAt: number;
  /** Whether this is its first attempt (the queue wait is recorded once). */
  firstAttempt: boolean;
  id?: string;
}

/**
 * A queued job's work traced under the span that queued it: `queue wait` (from its add to now, on its first
 * attempt), then a span `name` around `fn`.
 */
export function inJobSpan<T>(name: string, job: QueuedJob, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  const parent = contextOf(job.traceparent);
  if (job.firstAttempt) recordSpan('queue wait', parent, job.addedAt, Date.now(), { 'job.id': job.id ?? '' });
  return inSpan(name, { parent, attributes }, fn);
}

/**
 * Marks `span` failed with the error: its message, and `error.type` set to the error's class in the platform's
 * vocabulary (libs/errors: `UpstreamError`, `NotFoundError`, ...), or the class of whatever else was thrown.
 */
export function recordError(span: Span, err: unknown): void {
  if (!tracingEnabled()) return;
  const e = err instanceof Error ? err : new Error(String(err));
  span.recordException(e);
  span.setAttribute('error.type', e.name || 'Error');
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}

/** Marks the active span failed (see `recordError`), e.g. where an error is answered rather than thrown. */
export function recordErrorOnActive(err: unknown): void {
  const span = tracingEnabled() ? trace.getActiveSpan() : undefined;
  if (span) recordError(span, err);
}

/** Sets attributes on the active span (provider's token counts, a run's outcome), if there is one. */
export function annotate(attributes: Attributes): void {
  if (!tracingEnabled()) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The active span's trace and span ids, when this process traces and the span is sampled; for logs and records. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!tracingEnabled()) return undefined;
  const ctx = trace.getActiveSpan()?.spanContext();
  if (!ctx || !trace.isSpanContextValid(ctx)) return undefined;
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

/** The W3C `traceparent` of the active span, to carry the trace across a queue (or a record); undefined when none. */
export function activeTraceparent(): string | undefined {
  if (!tracingEnabled() || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a `traceparent` (from a job or a record) names, to start spans under; the root context when none. */
export function contextOf(traceparent: string | undefined | null): Context {
  if (!tracingEnabled() || !traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Runs `fn` with `ctx` active (see `contextOf`). */
export function withContext<T>(ctx: Context, fn: () => T): T {
  return tracingEnabled() ? context.with(ctx, fn) : fn();
}

export { ROOT_CONTEXT };
