import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';

import { traceOutgoing } from '@platform/tracing';

import { OutboundTooLargeError } from './errors';

/** One HTTP exchange, no redirects followed: what `send` asks of the transport. */
export interface Exchange {
  url: URL;
  method: string;
  headers: Record<string, string>;
  /** A string or Buffer is sent as is; anything else (not null) as JSON. */
  body: unknown;
  signal: AbortSignal;
  agents: { http: http.Agent; https: https.Agent };
}

/** The answer's status and headers, and its body decoded (gzip, deflate, br) as it streams. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Readable;
}

/** What every call says unless the caller says otherwise (as browsers and common clients do). */
const DEFAULT_HEADERS: Record<string, string> = {
  accept: 'application/json, text/plain, */*',
  'accept-encoding': 'gzip, deflate, br',
};

/** The bytes to send and the content type they imply (none for a string or Buffer: the caller names it). */
function encodeBody(body: unknown): { bytes?: Buffer; type?: string } {
  if (body === undefined || body === null) return {};
  if (Buffer.isBuffer(body)) return { bytes: body };
  if (typeof body === 'string') return { bytes: Buffer.from(body, 'utf8') };
  return { bytes: Buffer.from(JSON.stringify(body), 'utf8'), type: 'application/json' };
}

/** The body as the server meant it: decompressed when it says it is compressed, as is otherwise. */
function decoded(res: http.IncomingMessage, method: string): Readable {
  const coding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304) return res;
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : coding === 'deflate'
        ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : coding === 'br'
          ? zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : null;
  if (!decoder) return res;
  // The headers describe the encoded body; what the caller reads is decoded.
  delete res.headers['content-encoding'];
  delete res.headers['content-length'];
  return pipeline(res, decoder, () => undefined);
}

/** Sends on a fresh socket at most this many times after a kept-alive one was found closed by its server. */
const STALE_SOCKET_RETRIES = 2;

/**
 * A kept-alive socket that its server closed (its idle timeout) while the agent handed it out: the request met a
 * reset before any answer. The server read nothing of it (Node's documentation of `request.reusedSocket` gives this
 * rule), so it is sent again on another socket rather than failing the call.
 */
const staleSocket = (req: http.ClientRequest, err: NodeJS.ErrnoException) =>
  req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');

/**
 * Node's own HTTP client for one exchange over the guarded keep-alive agents: resolves once the headers arrived,
 * rejects with the socket's or the guard's error (the signal's reason when it fired).
 */
export function exchange(x: Exchange): Promise<RawResponse> {
  const { bytes, type } = encodeBody(x.body);
  const headers: Record<string, string> = { ...DEFAULT_HEADERS };
  for (const [k, v] of Object.entries(x.headers)) headers[k.toLowerCase()] = v;
  if (type && !headers['content-type']) headers['content-type'] = type;
  if (bytes) headers['content-length'] = String(bytes.length);
  const secure = x.url.protocol === 'https:';
  // Traced as one call, stale-socket retries included; the traceparent goes in the headers.
  const done = traceOutgoing(x.method, x.url, headers);
  const send = (retries: number): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(x.url, {
        method: x.method,
        headers,
        agent: secure ? x.agents.https : x.agents.http,
        signal: x.signal,
      });
      req.once('error', (err: NodeJS.ErrnoException) =>
        retries > 0 && !x.signal.aborted && staleSocket(req, err) ? resolve(send(retries - 1)) : reject(err),
      );
      req.once('response', (res) => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: decoded(res, x.method) });
      });
      req.end(bytes);
    });
  const answered = send(STALE_SOCKET_RETRIES);
  if (!done) return answered;
  answered.then(
    (res) => done({ status: res.status }),
    (error: unknown) => done({ error }),
  );
  return answered;
}

/**
 * A body's chunks, failing with OutboundTooLargeError (and closing the connection) once more than `cap` bytes have
 * come: the one place the size cap is counted, for bodies read whole and streamed alike.
 */
export async function* capped(body: Readable, cap: number): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > cap) {
      body.destroy();
      throw new OutboundTooLargeError(cap);
    }
    yield buf;
  }
}

/**
 * Reads a body whole, within the size cap (OutboundTooLargeError past it, the connection closed), by its events: no
 * async iteration for the body of every call (capped's generator is for bodies handed over as they stream). Fails
 * with the stream's error, or a premature close when it ends without its end.
 */
export function readAll(body: Readable, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err: Error | null) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', finish);
      body.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: unknown) => {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buf.length;
      if (size > cap) {
        finish(new OutboundTooLargeError(cap));
        body.destroy();
        return;
      }
      chunks.push(buf);
    };
    const onEnd = () => finish(null);
    const onClose = () => finish(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', finish);
    body.once('close', onClose);
  });
}
