import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

import { spansOf, startJaeger, type Jaeger } from '@platform/testing';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Whether something accepts connections on the URL's port. */
const listening = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect(Number(new URL(url).port), '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/**
 * One OTLP/HTTP JSON export, as an OpenTelemetry SDK sends it: a server span and its child (a database call), from a
 * service named in the resource. OTLP/JSON writes the ids in hex and the times as strings of nanoseconds.
 */
function exportBody(traceId: string, parentId: string, childId: string, service: string): unknown {
  const startNs = BigInt(Date.now()) * 1_000_000n;
  const ns = (ms: number) => String(startNs + BigInt(ms) * 1_000_000n);
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            scope: { name: 'jaeger-test' },
            spans: [
              {
                traceId,
                spanId: parentId,
                name: 'GET /things',
                kind: 2,
                startTimeUnixNano: ns(0),
                endTimeUnixNano: ns(20),
                attributes: [
                  { key: 'http.request.method', value: { stringValue: 'GET' } },
                  { key: 'http.response.status_code', value: { intValue: '200' } },
                ],
              },
              {
                traceId,
                spanId: childId,
                parentSpanId: parentId,
                name: 'find things',
                kind: 3,
                startTimeUnixNano: ns(5),
                endTimeUnixNano: ns(15),
                attributes: [{ key: 'db.system', value: { stringValue: 'mongodb' } }],
              },
            ],
          },
        ],
      },
    ],
  };
}

async function post(jaeger: Jaeger, body: unknown): Promise<Response> {
  return fetch(`${jaeger.otlpEndpoint}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

let jaeger: Jaeger;

beforeAll(async () => {
  jaeger = await startJaeger();
});

afterAll(async () => {
  await jaeger?.stop();
});

it('receives an OTLP/HTTP export and answers the trace with its parent link, service and tags', async () => {
  const [traceId, parentId, childId] = [hex(16), hex(8), hex(8)];
  const res = await post(jaeger, exportBody(traceId, parentId, childId, 'jaeger-test-service'));
  expect(res.status).toBe(200);

  const trace = await jaeger.waitForTrace(traceId, (t) => t.spans.length === 2);
  expect(trace.traceID).toBe(traceId);
  const [parent, child] = spansOf(trace);
  expect(parent).toMatchObject({ spanId: parentId, name: 'GET /things', service: 'jaeger-test-service' });
  expect(parent!.parentId).toBeUndefined();
  expect(parent!.tags).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
  expect(parent!.durationUs).toBe(20_000);
  expect(child).toMatchObject({ spanId: childId, parentId, name: 'find things', service: 'jaeger-test-service' });
  expect(child!.tags).toMatchObject({ 'db.system': 'mongodb' });
  expect(child!.startUs - parent!.startUs).toBe(5_000);

  expect(await jaeger.services()).toContain('jaeger-test-service');
  expect((await jaeger.tracesOf('jaeger-test-service')).map((t) => t.traceID)).toContain(traceId);
});

it('answers null for a trace it does not hold, and waitForTrace says what it had when it gives up', async () => {
  const unknown = hex(16);
  expect(await jaeger.trace(unknown)).toBeNull();
  await expect(jaeger.waitForTrace(unknown, undefined, 300)).rejects.toThrow(/not as expected .*spans: \[\]/);

  const [traceId, parentId, childId] = [hex(16), hex(8), hex(8)];
  await post(jaeger, exportBody(traceId, parentId, childId, 'jaeger-test-other'));
  await expect(jaeger.waitForTrace(traceId, (t) => t.spans.length > 2, 500)).rejects.toThrow(
    /jaeger-test-other:GET \/things, jaeger-test-other:find things/,
  );
});

it('runs beside another Jaeger on ports of its own, each keeping its own traces, and frees them on stop', async () => {
  const other = await startJaeger();
  try {
    expect(other.otlpEndpoint).not.toBe(jaeger.otlpEndpoint);
    expect(other.queryUrl).not.toBe(jaeger.queryUrl);
    const [traceId, parentId, childId] = [hex(16), hex(8), hex(8)];
    await post(other, exportBody(traceId, parentId, childId, 'jaeger-test-beside'));
    await other.waitForTrace(traceId);
    expect(await jaeger.trace(traceId)).toBeNull();
  } finally {
    await other.stop();
  }
  expect(await listening(other.queryUrl)).toBe(false);
  expect(await listening(other.otlpEndpoint)).toBe(false);
});

it('says how to install Jaeger when its binary is missing', async () => {
  const before = process.env.JAEGER_BIN;
  process.env.JAEGER_BIN = '/nonexistent/jaeger';
  try {
    await expect(startJaeger()).rejects.toThrow(/scripts\/install-jaeger\.sh/);
  } finally {
    if (before === undefined) delete process.env.JAEGER_BIN;
    else process.env.JAEGER_BIN = before;
  }
});
