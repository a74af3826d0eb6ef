import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';

import { createHttpApp, uploadedFile, uploadMiddleware } from '@platform/http';
import { captureLogger } from '@platform/testing';
import { currentTraceIds, startTracing, stopTracing } from '@platform/tracing';

// With tracing on as a service starts it (spans go to a collector that is not there), a request's trace reaches the
// route through each way the platform reads a body, although the body arrives after the app's first middleware
// returned: the JSON parser, the raw parser of the signed routes and the multipart reader. The request's log line,
// written when the response is sent, names the trace too.
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';
const traceparent = `00-${TRACE}-${CALLER}-01`;

const { logger, lines } = captureLogger('trace-context');
let server: http.Server;
let base: string;
let uploads: string;

beforeAll(async () => {
  startTracing('trace-context-test', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  uploads = await mkdtemp(join(tmpdir(), 'trace-context-'));
  const routes = express.Router();
  routes.post('/json', (req, res) => {
    res.json({ ids: currentTraceIds(), body: req.body as unknown });
  });
  const raw = express.Router();
  raw.post('/raw', express.raw({ type: () => true }), (req, res) => {
    res.json({ ids: currentTraceIds(), size: (req.body as Buffer).length });
  });
  raw.post('/upload', uploadMiddleware({ dir: uploads, maxFileBytes: 1024 }), (req, res) => {
    res.json({ ids: currentTraceIds(), size: uploadedFile(req).size });
  });
  const { app } = createHttpApp({ service: 'trace-context', logger, routes, rawRoutes: [raw] });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await stopTracing(1_000);
  await rm(uploads, { recursive: true, force: true });
});

/** POSTs `body` in two writes 50 ms apart, so that it is read from socket events after the first middleware ran. */
function postInTwoParts(
  path: string,
  contentType: string,
  body: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: { traceparent, 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    setTimeout(() => req.end(body.slice(half)), 50);
  });
}

/** The request log line of `path`, once written. */
async function requestLine(path: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i += 1) {
    const found = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.path === path);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no request line for ${path}`);
}

const inTrace = { trace_id: TRACE, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) };

it('a JSON body read after the first middleware returned: the route runs in the request span', async () => {
  const { status, json } = await postInTwoParts('/json', 'application/json', JSON.stringify({ n: 'x'.repeat(200) }));
  expect(status).toBe(200);
  expect(json.ids).toEqual(inTrace);
  // the server span, not the caller's: the route is inside this process's span
  expect((json.ids as { span_id: string }).span_id).not.toBe(CALLER);
  expect(await requestLine('/json')).toMatchObject({ ...inTrace, status: 200 });
});

it('a raw body (the signed routes) and a multipart upload: the same', async () => {
  const raw = await postInTwoParts('/raw', 'text/plain', 'y'.repeat(300));
  expect(raw).toMatchObject({ status: 200, json: { ids: inTrace, size: 300 } });
  const boundary = 'b0undary';
  const form = [
    `--${boundary}`,
    'Content-Disposition: form-data; name="file"; filename="a.txt"',
    'Content-Type: text/plain',
    '',
    'z'.repeat(100),
    `--${boundary}--`,
    '',
  ].join('\r\n');
  const upload = await postInTwoParts('/upload', `multipart/form-data; boundary=${boundary}`, form);
  expect(upload).toMatchObject({ status: 200, json: { ids: inTrace, size: 100 } });
  expect(await requestLine('/upload')).toMatchObject({ ...inTrace, status: 200 });
});
