import { connect } from 'node:net';
import express from 'express';
import Joi from 'joi';

import { ValidationError } from '@platform/errors';
import {
  createHttpApp,
  listen,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_INPUT_ERRORS,
  MAX_JSON_DEPTH,
  parseJsonBytes,
  UNSUPPORTED_MEDIA_TYPE,
  validate,
  type RunningServer,
} from '@platform/http';
import { captureLogger } from '@platform/testing';

/** Writes `raw` on a fresh connection and resolves with everything the server sent back before closing. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
}

const fieldErrors = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  throw new Error('no ValidationError');
};

describe('requests Node cannot parse get a detail too (listen)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const routes = express.Router();
    routes.post('/echo', (req, res) => {
      res.json({ received: req.body as unknown, type: req.get('content-type') ?? null });
    });
    const { app } = createHttpApp({ service: 'raw-test', logger: captureLogger('raw-test').logger, routes });
    server = await listen(app, 0, undefined, '127.0.0.1');
  });
  afterAll(() => server.close(100));

  test('headers over the server limit → 431 with a JSON detail', async () => {
    const reply = await exchange(
      server.port,
      `GET /echo HTTP/1.1\r\nHost: x\r\nx-api-key: ${'k'.repeat(20_000)}\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 431 /);
    expect(reply).toMatch(/content-type: application\/json/i);
    expect(reply.endsWith('{"detail":"Request header fields too large"}')).toBe(true);
  });

  test('also on a kept-alive connection that already answered a request', async () => {
    const socket = connect(server.port, '127.0.0.1');
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString('latin1')));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    for (let i = 0; i < 100 && !got.includes('"received"'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
    socket.end(`GET /echo HTTP/1.1\r\nHost: x\r\nx-big: ${'k'.repeat(20_000)}\r\n\r\n`);
    await closed;
    expect(got).toContain('HTTP/1.1 431 ');
    expect(got.endsWith('{"detail":"Request header fields too large"}')).toBe(true);
  });

  test('a request line that is not HTTP → 400 with a JSON detail', async () => {
    const reply = await exchange(server.port, 'HELLO THERE\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply.endsWith('{"detail":"Bad request"}')).toBe(true);
  });

  test('a body without any Content-Type header → 415', async () => {
    const reply = await exchange(
      server.port,
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 415 /);
    expect(reply.endsWith(JSON.stringify({ detail: UNSUPPORTED_MEDIA_TYPE }))).toBe(true);
  });

  test('a chunked JSON body is read like any other', async () => {
    const reply = await exchange(
      server.port,
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n7\r\n{"a":1}\r\n0\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain('{"received":{"a":1},"type":"application/json"}');
  });
});

describe('parseJsonBytes (routes that read raw bytes first)', () => {
  test('any JSON value, scalars included', () => {
    expect(parseJsonBytes(Buffer.from('{"a":[1,"x"]}'))).toEqual({ a: [1, 'x'] });
    expect(parseJsonBytes(Buffer.from('"just text"'))).toBe('just text');
  });

  test.each([[''], ['{"a":'], ['not json'], ['\u0000']])('%j → 422 json_invalid', (raw) => {
    expect(fieldErrors(() => parseJsonBytes(Buffer.from(raw)))).toEqual([
      { loc: ['body'], msg: 'Body must be valid JSON', type: 'json_invalid' },
    ]);
  });

  test('U+0000, lone surrogates and depth get the same 422s as JSON routes', () => {
    expect(fieldErrors(() => parseJsonBytes(Buffer.from('{"m":"a\\u0000"}')))).toEqual([
      { loc: ['body', 'm'], msg: expect.any(String), type: 'string_nul' },
    ]);
    expect(fieldErrors(() => parseJsonBytes(Buffer.from('"\\ud800"')))).toEqual([
      { loc: ['body'], msg: expect.any(String), type: 'string_unicode' },
    ]);
    const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    expect(fieldErrors(() => parseJsonBytes(Buffer.from(deep)))[0]!.type).toBe('json_too_deep');
  });
});

describe('validate keeps a 422 bounded', () => {
  test(`50,000 wrong items → the first MAX_INPUT_ERRORS (${MAX_INPUT_ERRORS}) entries`, () => {
    const errors = fieldErrors(() =>
      validate(
        Joi.array().items(Joi.string()),
        Array.from({ length: 50_000 }, (_v, i) => i),
        'body',
      ),
    );
    expect(errors).toHaveLength(MAX_INPUT_ERRORS);
    expect(errors[0]).toEqual({ loc: ['body', 0], msg: expect.any(String), type: 'string_type' });
  });

  test(`a message quoting a huge value is cut at MAX_ERROR_MESSAGE_CHARS (${MAX_ERROR_MESSAGE_CHARS})`, () => {
    const echo = Joi.string().custom((v: string, helpers) => helpers.message({ custom: `Unknown zone "${v}"` }));
    const [error] = fieldErrors(() => validate(Joi.object({ zone: echo }), { zone: 'x'.repeat(100_000) }, 'body'));
    expect(error!.msg).toHaveLength(MAX_ERROR_MESSAGE_CHARS);
    expect(error!.msg.endsWith('…')).toBe(true);
  });
});
