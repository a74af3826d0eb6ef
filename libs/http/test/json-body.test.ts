import { connect } from 'node:net';
import express, { type Express } from 'express';
import request from 'supertest';

import { createHttpApp, limitBytes } from '@platform/http';
import { captureLogger } from '@platform/testing';

/** An app with one JSON route that echoes what it was sent (and counts its calls), under a limit of 1 MiB. */
function build() {
  const calls: string[] = [];
  const routes = express.Router();
  routes.post('/echo', (req, res) => {
    calls.push('echo');
    res.json({ received: req.body as unknown });
  });
  const { app } = createHttpApp({
    service: 'json-body-test',
    logger: captureLogger('json-body-test').logger,
    routes,
    jsonLimit: '1mb',
  });
  return { app, calls };
}

const post = (app: Express) => request(app).post('/echo');

/**
 * Plain JSON (`application/json`, UTF-8, a Content-Length within the limit) is read by the parser's own path; any
 * other JSON request by express's. The two answer every body alike.
 */
describe('the plain JSON path and express parser answer alike', () => {
  let app: Express;
  beforeEach(() => {
    ({ app } = build());
  });
  const send = (type: string, raw: string | Buffer) => post(app).set('content-type', type).send(raw);
  const bodies: [string, string | Buffer][] = [
    ['an object', '{"a":[1,"é",{"b":null}]}'],
    ['an array after whitespace', ' \r\n\t[1,2]'],
    ['a byte order mark first', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])],
    ['a JSON string (not an object or array)', '"x"'],
    ['a number', '1'],
    ['whitespace only', '   '],
    ['broken JSON', '{"a":'],
    ['trailing garbage', '{"a":1} x'],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ];
  test.each(bodies)('%s', async (_name, raw) => {
    const plain = await send('application/json', raw);
    const general = await send('application/vnd.test+json', raw);
    expect(plain.status).toBe(general.status);
    expect(plain.body).toEqual(general.body);
    expect([200, 422]).toContain(plain.status);
  });

  test('a body of exactly the limit is read; one byte more → 413, on both paths', async () => {
    const limit = limitBytes('1mb')!;
    const at = JSON.stringify({ pad: 'x'.repeat(limit - '{"pad":""}'.length) });
    expect(Buffer.byteLength(at)).toBe(limit);
    const over = JSON.stringify({ pad: 'x'.repeat(limit - '{"pad":""}'.length + 1) });
    for (const type of ['application/json', 'application/vnd.test+json']) {
      expect((await send(type, at)).status).toBe(200);
      const res = await send(type, over);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: 'Request body too large' });
    }
  });

  test('charset and content type spellings of plain JSON are all read', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/json']) {
      const res = await send(type, '{"a":1}');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { a: 1 } });
    }
  });

  test('limitBytes reads limits as body-parser does, and nothing else', () => {
    expect(limitBytes('1mb')).toBe(1024 * 1024);
    expect(limitBytes('100kb')).toBe(100 * 1024);
    expect(limitBytes('1.5MB')).toBe(1.5 * 1024 * 1024);
    expect(limitBytes(' 10 b ')).toBe(10);
    expect(limitBytes('512')).toBe(512);
    expect(limitBytes(2048)).toBe(2048);
    expect(limitBytes('1 megabyte')).toBeNull();
    expect(limitBytes(-1)).toBeNull();
  });
});

describe('a plain JSON body cut short', () => {
  test('the request gets no handler and the server goes on answering', async () => {
    const { app, calls } = build();
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    try {
      // Content-Length promises 100 bytes; 10 come, then the client closes its side.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.end(
            'POST /echo HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":"1234',
          ),
        );
        socket.on('data', () => undefined);
        socket.on('close', () => resolve());
        socket.on('error', reject);
        socket.setTimeout(5000, () => socket.destroy(new Error('the server kept the cut request open')));
      });
      expect(calls).not.toContain('echo');
      const res = await request(server).post('/echo').send({ b: 2 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: { b: 2 } });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
