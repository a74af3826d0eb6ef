import { Registry } from 'prom-client';

import {
  activeTraceparent,
  contextOf,
  currentTraceIds,
  inSpan,
  recordSpan,
  registerTracingMetrics,
  ROOT_CONTEXT,
  traceIncoming,
  traceOutgoing,
  tracingEnabled,
  withContext,
} from '../src';

// This process never starts tracing: every helper must be a pass-through that records nothing.
describe('the span helpers while tracing is off', () => {
  it('run the work as it is, with no trace ids, traceparent or context', async () => {
    expect(tracingEnabled()).toBe(false);
    const seen = await inSpan('x', { attributes: { a: 1 } }, async (span) => {
      expect(span.isRecording()).toBe(false);
      return [currentTraceIds(), activeTraceparent()];
    });
    expect(seen).toEqual([undefined, undefined]);
    await expect(inSpan('x', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(contextOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe(ROOT_CONTEXT);
    expect(withContext(ROOT_CONTEXT, () => 42)).toBe(42);
    expect(() => recordSpan('wait', ROOT_CONTEXT, 1, 2)).not.toThrow();
  });

  it('pass HTTP requests and calls through untouched', () => {
    const headers: Record<string, string> = { traceparent: 'from-the-caller' };
    expect(traceOutgoing('GET', new URL('http://127.0.0.1/x'), headers)).toBeUndefined();
    expect(headers).toEqual({ traceparent: 'from-the-caller' });
    let handled = 0;
    const res = { once: () => res };
    traceIncoming(
      { url: '/x', headers: {} } as never,
      res as never,
      () => (handled += 1),
      () => '/x',
    );
    expect(handled).toBe(1);
  });

  it("register their counters in a service's registry, reading 0, once however often asked", async () => {
    const registry = new Registry();
    registerTracingMetrics(registry);
    registerTracingMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('tracing_spans_exported_total 0');
    expect(text).toContain('# TYPE tracing_spans_dropped_total counter');
    expect(text).toContain('tracing_span_queue_size 0');
  });
});
