import { spawn } from 'node:child_process';
import { request, type Agent, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';

/** A request's or response's whole body. */
export const readBody = (msg: IncomingMessage) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    msg.on('data', (c: Buffer) => chunks.push(c));
    msg.on('end', () => done(Buffer.concat(chunks)));
    msg.on('error', fail);
  });

/** A call over a keep-alive agent; resolves with the answer's body, rejects on a status of 300 or more. */
export function send(
  agent: Agent,
  url: URL,
  method: 'GET' | 'POST',
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<Buffer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          ...extraHeaders,
          ...(text === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
        },
      },
      (res) => {
        readBody(res).then((b) => {
          if ((res.statusCode ?? 500) >= 300) fail(new Error(`${url.href}: ${res.statusCode}`));
          else done(b);
        }, fail);
      },
    );
    req.on('error', fail);
    req.end(text);
  });
}

/** A kept-alive socket closed by the server as it was reused: the request never reached it. */
const cutOff = (err: unknown) => ['ECONNRESET', 'EPIPE'].includes(String((err as { code?: unknown }).code));

/**
 * POST JSON over a keep-alive agent; resolves with the parsed answer. A request cut off on a reused socket is sent
 * again (twice at most), as our services treat a call that did not reach its target.
 */
export async function postJson(
  agent: Agent,
  url: URL,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  for (let tries = 1; ; tries++) {
    try {
      return JSON.parse((await send(agent, url, 'POST', body, headers)).toString('utf8'));
    } catch (err) {
      if (tries >= 3 || !cutOff(err)) throw err;
    }
  }
}

/**
 * The server of `targetProcess`: answers every request 200 `ok` once its body is read. It keeps idle connections a
 * minute (Node's default is 5 s): a caller's pool of 64 keeps some sockets idle between bursts, and a socket the server
 * closes as the caller reuses it fails that call ("socket hang up").
 */
const TARGET = `const srv = require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => s.writeHead(200, { 'content-type': 'text/plain' }).end('ok')); }); srv.keepAliveTimeout = 60000; srv.listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;

/**
 * An HTTP target in a process of its own (a floor calls it as a schedule's run calls its URL, and its CPU is not
 * counted with the caller's). Resolves once it listens.
 */
export async function targetProcess(): Promise<{ url: URL; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', TARGET], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout! }).once('line', done);
    child.once('exit', (code) => fail(new Error(`the target process exited (${code})`)));
  });
  return { url: new URL(`http://127.0.0.1:${port}/`), stop: () => child.kill('SIGKILL') };
}
