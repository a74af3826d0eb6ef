/**
 * What goes on the wire and how answers are read: request bodies and their content type, the default headers,
 * compressed answers decoded (the size cap counting decoded bytes), keep-alive reuse.
 */
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';

import { createOutboundClient, OutboundTooLargeError, type OutboundClient } from '@platform/outbound';
import { startLocalServer, type LocalServer } from '@platform/testing';

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: LocalServer;
let client: OutboundClient;
const seen: Seen[] = [];
const TEXT = 'héllo, wörld '.repeat(500);

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    seen.push({ method: req.method, headers: req.headers, body: req.body });
    const path = req.url;
    if (path === '/gzip')
      return res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(zlib.gzipSync(TEXT));
    if (path === '/br')
      return res
        .writeHead(200, { 'content-encoding': 'br', 'content-type': 'text/plain' })
        .end(zlib.brotliCompressSync(TEXT));
    if (path === '/deflate')
      return res
        .writeHead(200, { 'content-encoding': 'deflate', 'content-type': 'text/plain' })
        .end(zlib.deflateSync(TEXT));
    if (path === '/bomb')
      return res
        .writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' })
        .end(zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024)));
    if (path === '/cookies')
      return res
        .writeHead(200, [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
          ['content-type', 'application/json'],
        ])
        .end('{"ok":true}');
    if (path === '/bad-json') return res.writeHead(200, { 'content-type': 'application/json' }).end('{nope');
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"answer":42}');
  });
  client = createOutboundClient({ allowHosts: `127.0.0.1:${server.port}`, userAgent: 'wire-test/1' });
});
afterAll(async () => {
  client.close();
  await server.close();
});
beforeEach(() => {
  seen.length = 0;
});

it('an object body is sent as JSON with its content type and length; a string or Buffer as it is', async () => {
  await client.request({ url: `${server.url}/`, method: 'post', body: { a: 'é', n: [1, 2] } });
  await client.request({
    url: `${server.url}/`,
    method: 'PUT',
    body: 'a=1&b=2',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  await client.request({ url: `${server.url}/`, method: 'POST', body: Buffer.from([1, 2, 3]) });
  const [json, form, bytes] = seen;
  expect(json!.method).toBe('POST');
  expect(json!.headers['content-type']).toBe('application/json');
  expect(JSON.parse(json!.body)).toEqual({ a: 'é', n: [1, 2] });
  expect(Number(json!.headers['content-length'])).toBe(Buffer.byteLength(json!.body));
  expect(form!.headers['content-type']).toBe('application/x-www-form-urlencoded');
  expect(form!.body).toBe('a=1&b=2');
  expect(bytes!.headers['content-type']).toBeUndefined();
  expect(bytes!.headers['content-length']).toBe('3');
});

it('a GET sends no body; the user agent, accept and accept-encoding are set unless the caller sets them', async () => {
  await client.request({ url: `${server.url}/` });
  await client.request({ url: `${server.url}/`, headers: { 'User-Agent': 'mine', Accept: 'text/csv' } });
  const [plain, own] = seen;
  expect(plain!.method).toBe('GET');
  expect(plain!.body).toBe('');
  expect(plain!.headers['user-agent']).toBe('wire-test/1');
  expect(plain!.headers.accept).toBe('application/json, text/plain, */*');
  expect(plain!.headers['accept-encoding']).toBe('gzip, deflate, br');
  expect(own!.headers['user-agent']).toBe('mine');
  expect(own!.headers.accept).toBe('text/csv');
});

it.each(['gzip', 'br', 'deflate'])('a %s answer is decoded, its encoding header dropped', async (coding) => {
  const res = await client.request({ url: `${server.url}/${coding}` });
  expect(res.text).toBe(TEXT);
  expect(res.headers['content-encoding']).toBeUndefined();
  const streamed = await client.stream({ url: `${server.url}/${coding}` });
  const parts: Buffer[] = [];
  for await (const chunk of streamed.body) parts.push(chunk);
  expect(Buffer.concat(parts).toString('utf8')).toBe(TEXT);
});

it('the size cap counts decoded bytes: a small compressed answer that decodes past the cap is refused', async () => {
  await expect(client.request({ url: `${server.url}/bomb`, maxResponseBytes: 1024 * 1024 })).rejects.toBeInstanceOf(
    OutboundTooLargeError,
  );
  const ok = await client.request({ url: `${server.url}/bomb`, maxResponseBytes: 9 * 1024 * 1024 });
  expect(ok.body.length).toBe(8 * 1024 * 1024);
});

it('JSON is parsed when the type says JSON (text kept when it does not parse); repeated headers are joined', async () => {
  const res = await client.request({ url: `${server.url}/` });
  expect(res.data).toEqual({ answer: 42 });
  expect(res.url).toBe(`${server.url}/`);
  const bad = await client.request({ url: `${server.url}/bad-json` });
  expect(bad.data).toBe('{nope');
  const cookies = await client.request({ url: `${server.url}/cookies` });
  expect(cookies.headers['set-cookie']).toBe('a=1, b=2');
  expect(cookies.data).toEqual({ ok: true });
});

it('sequential calls reuse one keep-alive connection', async () => {
  await client.request({ url: `${server.url}/` });
  const before = server.connections;
  for (let i = 0; i < 5; i++) await client.request({ url: `${server.url}/` });
  expect(server.connections).toBe(before);
});

describe('a kept-alive socket its server closed', () => {
  /**
   * A server that answers the first request of each connection with keep-alive and resets the connection when a
   * second request arrives on it, as a server whose idle timeout closed the socket while the client reused it.
   */
  async function resettingServer() {
    const requests: number[] = []; // the connection number of each request that was answered
    let connections = 0;
    const srv = net.createServer((sock) => {
      const n = ++connections;
      let served = 0;
      let buf = '';
      sock.on('data', (d) => {
        buf += d.toString('latin1');
        while (buf.includes('\r\n\r\n')) {
          const end = buf.indexOf('\r\n\r\n') + 4;
          const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
          if (buf.length < end + length) return;
          buf = buf.slice(end + length);
          if (served++ > 0) return void sock.resetAndDestroy();
          requests.push(n);
          sock.write(
            'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}',
          );
        }
      });
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as net.AddressInfo).port;
    return { port, requests, close: () => new Promise<void>((r) => srv.close(() => r())) };
  }

  it('the call is sent again on a new socket, not failed (POST included)', async () => {
    const srv = await resettingServer();
    const c = createOutboundClient({ allowHosts: `127.0.0.1:${srv.port}` });
    try {
      const url = `http://127.0.0.1:${srv.port}/hook`;
      for (let i = 0; i < 3; i++) {
        const res = await c.request({ url, method: 'POST', body: { i } });
        expect(res.status).toBe(200);
      }
      // Each call after the first met the reset on the reused socket and was answered on a connection of its own.
      expect(srv.requests).toEqual([1, 2, 3]);
    } finally {
      c.close();
      await srv.close();
    }
  });

  it('a reset on a socket of its own is the call failing (not retried)', async () => {
    const srv = net.createServer((sock) => sock.once('data', () => sock.resetAndDestroy()));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as net.AddressInfo).port;
    let accepted = 0;
    srv.on('connection', () => accepted++);
    const c = createOutboundClient({ allowHosts: `127.0.0.1:${port}` });
    try {
      await expect(c.request({ url: `http://127.0.0.1:${port}/`, method: 'POST', body: {} })).rejects.toThrow();
      expect(accepted).toBe(1);
    } finally {
      c.close();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});
