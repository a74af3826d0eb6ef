import { AsyncResource } from 'node:async_hooks';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

import { currentTraceIds, traceIncoming, traceOutgoing } from '../src';
import { setTracingEnabled } from '../src/state';

// The platform's own HTTP spans against real sockets, with the SDK recording into memory.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER = 'b7ad6b7169203331';

let app: http.Server;
let downstream: http.Server;
let appUrl: string;
let downstreamUrl: URL;
/** The headers the downstream server was sent, and the trace ids seen where the app read its request's body. */
let sent: IncomingHttpHeaders[] = [];
let seenInBody: ReturnType<typeof currentTraceIds>;

const listen = async (s: http.Server) => {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  downstream = http.createServer((req, res) => {
    sent.push(req.headers);
    res.writeHead(req.url === '/missing' ? 404 : 200).end();
  });
  downstreamUrl = new URL(await listen(downstream));
  // The route a request matched, as the app's router would name it (none for /fail).
  const routeOf = (req: http.IncomingMessage) => () => (req.url?.startsWith('/things/') ? '/things/:id' : undefined);
  app = http.createServer((req, res) =>
    traceIncoming(
      req,
      res,
      () => {
        if (req.url === '/healthz') return res.end('ok');
        if (req.url === '/fail') return res.writeHead(500).end();
        // The body is read from the socket's own events, after the handler returned, and its callback bound to the
        // caller's async context as raw-body and multer bind theirs: it runs in the span's context.
        let size = 0;
        req.on('data', (chunk: Buffer) => (size += chunk.length));
        req.on(
          'end',
          AsyncResource.bind(() => {
            seenInBody = currentTraceIds();
            const headers: Record<string, string> = { traceparent: 'passed-on-from-elsewhere' };
            const done = traceOutgoing('GET', new URL('/things', downstreamUrl), headers);
            const out = http.request(new URL('/things', downstreamUrl), { headers }, (answer) => {
              done?.({ status: answer.statusCode });
              answer.resume();
              res.writeHead(201).end(String(size));
            });
            out.end();
          }),
        );
      },
      routeOf(req),
    ),
  );
  appUrl = await listen(app);
});

afterAll(async () => {
  await new Promise((r) => app.close(r));
  await new Promise((r) => downstream.close(r));
  setTracingEnabled(false);
  await provider.shutdown();
});

beforeEach(() => {
  exporter.reset();
  sent = [];
  seenInBody = undefined;
});

/** Sends a POST whose body comes in two writes 50 ms apart, so the app reads it from socket events. */
function post(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${appUrl}${path}`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.write('{"a":');
    setTimeout(() => req.end('1}'), 50);
  });
}

const finished = () => exporter.getFinishedSpans();

describe('HTTP spans', () => {
  it("continue the caller's trace, are named by route, and pass it on to the next call", async () => {
    expect(await post('/things/7?x=1', { traceparent: `00-${TRACE}-${CALLER}-01` })).toBe(201);
    const server = finished().find((s) => s.kind === SpanKind.SERVER)!;
    const client = finished().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(server.name).toBe('POST /things/:id');
    expect(server.spanContext().traceId).toBe(TRACE);
    expect(server.parentSpanContext?.spanId).toBe(CALLER);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/things/7',
      'http.route': '/things/:id',
      'http.response.status_code': 201,
    });
    expect(seenInBody).toEqual({ trace_id: TRACE, span_id: server.spanContext().spanId });
    expect(client.name).toBe('GET');
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(client.attributes).toMatchObject({
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': Number(downstreamUrl.port),
      'url.full': `${downstreamUrl.origin}/things`,
    });
    expect(sent[0]?.traceparent).toBe(`00-${TRACE}-${client.spanContext().spanId}-01`);
  });

  it('start a trace when the caller sent none, and leave probes untraced', async () => {
    expect(await post('/things/8', {})).toBe(201);
    const server = finished().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.spanContext().traceId).not.toBe(TRACE);
    exporter.reset();
    const res = await fetch(`${appUrl}/healthz`);
    expect(await res.text()).toBe('ok');
    expect(finished()).toHaveLength(0);
  });

  it('mark a 5xx answer, a 4xx call and a failed call as failures', async () => {
    expect((await fetch(`${appUrl}/fail`)).status).toBe(500);
    const server = finished()[0]!;
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(server.attributes['http.response.status_code']).toBe(500);
    expect(server.name).toBe('GET'); // no route matched: the method alone

    exporter.reset();
    const parent = provider.getTracer('t').startSpan('parent');
    const headers: Record<string, string> = {};
    await context.with(trace.setSpan(context.active(), parent), async () => {
      traceOutgoing('GET', new URL('/missing', downstreamUrl), headers)?.({ status: 404 });
      const refused = traceOutgoing('POST', new URL('http://127.0.0.1:9/x'), {});
      refused?.({ error: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      refused?.({ status: 200 }); // ended once only
    });
    parent.end();
    const [missing, failed] = finished().filter((s) => s.kind === SpanKind.CLIENT);
    expect(headers.traceparent).toContain(missing!.spanContext().spanId);
    expect(missing!.status.code).toBe(SpanStatusCode.ERROR);
    expect(missing!.attributes['error.type']).toBe('404');
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'connect ECONNREFUSED' });
    expect(failed!.attributes).toMatchObject({ 'error.type': 'ECONNREFUSED', 'server.port': 9 });
    expect(failed!.attributes['http.response.status_code']).toBeUndefined();
  });

  it('make no span and send no header for a call outside any traced operation', () => {
    const headers: Record<string, string> = {};
    expect(traceOutgoing('GET', downstreamUrl, headers)).toBeUndefined();
    expect(headers).toEqual({});
    expect(finished()).toHaveLength(0);
  });
});
