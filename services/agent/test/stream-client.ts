import { request as httpRequest, type IncomingMessage } from 'node:http';

/** One server-sent event as a client reads it. */
export interface ClientEvent {
  event: string;
  data: string;
}

export interface OpenStream {
  status: number;
  contentType: string;
  /** The next complete event, as soon as it has arrived; null once the stream ended. */
  next(): Promise<ClientEvent | null>;
  /** Every remaining event until the stream ends. */
  rest(): Promise<ClientEvent[]>;
  /** The whole body, for answers that are not streams (JSON errors). */
  text(): Promise<string>;
  /** Closes the connection, as a client that goes away does. */
  destroy(): void;
}

/** POSTs to /v3/inference/stream/ of a listening app and reads the answer event by event, as it arrives. */
export function openStream(
  port: number,
  apiKey: string | null,
  body: unknown,
  path = '/v3/inference/stream/',
): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (apiKey) headers['x-api-key'] = apiKey;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res: IncomingMessage) => {
      res.setEncoding('utf8');
      let buffer = '';
      let ended = false;
      const waiters: (() => void)[] = [];
      const wake = () => waiters.splice(0).forEach((w) => w());
      res.on('data', (chunk: string) => {
        buffer += chunk;
        wake();
      });
      res.on('end', () => {
        ended = true;
        wake();
      });
      res.on('error', () => {
        ended = true;
        wake();
      });
      const take = (): ClientEvent | null => {
        const at = buffer.indexOf('\n\n');
        if (at === -1) return null;
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
        const data = lines
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        return { event, data };
      };
      async function next(): Promise<ClientEvent | null> {
        for (;;) {
          const e = take();
          if (e) return e;
          if (ended) return null;
          await new Promise<void>((w) => waiters.push(w));
        }
      }
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        next,
        async rest() {
          const out: ClientEvent[] = [];
          for (let e = await next(); e; e = await next()) out.push(e);
          return out;
        },
        async text() {
          while (!ended) await new Promise<void>((w) => waiters.push(w));
          return buffer;
        },
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The text of a content event. */
export const contentOf = (e: ClientEvent | null): string =>
  (JSON.parse(e?.data ?? 'null') as { content: string }).content;
