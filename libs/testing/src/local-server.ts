import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A request a local server received, body read in full. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** When its body had arrived (ms since the epoch). */
  at: number;
}

export interface LocalServer {
  /** `http://<host>:<port>` without a trailing slash. */
  url: string;
  port: number;
  /** TCP connections accepted so far (a canary asserts this stays 0). */
  connections: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export type LocalHandler = (req: ReceivedRequest, res: ServerResponse) => unknown;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A small HTTP server on a loopback address that stands in for something outside the product (an LLM provider, a
 * user endpoint). It records every request and counts connections; `close` cuts open ones.
 */
export async function startLocalServer(handler: LocalHandler, host = '127.0.0.1'): Promise<LocalServer> {
  const self: LocalServer = { url: '', port: 0, connections: 0, requests: [], close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        json: parseJson(body),
        at: Date.now(),
      };
      self.requests.push(received);
      Promise.resolve(handler(received, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', () => {
    self.connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const addr = server.address();
  self.port = typeof addr === 'object' && addr ? addr.port : 0;
  self.url = `http://${host.includes(':') ? `[${host}]` : host}:${self.port}`;
  self.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return self;
}
