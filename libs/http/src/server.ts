import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';

import type { Logger } from '@platform/logger';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, waits for in-flight requests up to `graceMs`, then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

/** Node's answers to requests it cannot parse, with the API's `detail` body instead of none. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
};

/** How long a connection answered with a client error may go on sending before it is cut. */
const CLIENT_ERROR_LINGER_MS = 2_000;

function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  // As Node's own handler: answer unless a response on this connection has already started (the answer would
  // corrupt it), then close the connection.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, detail] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad request'];
    const body = JSON.stringify({ detail });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // Read and drop what the client is still sending: closing with unread bytes resets the connection, and a
    // reset can destroy the answer before the client reads it.
    socket.resume();
    setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
    return;
  }
  socket.destroy();
}

/** Listens on `port` (0 = any free port) and resolves once listening. */
export async function listen(app: Express, port: number, logger?: Logger, host?: string): Promise<RunningServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host ?? '0.0.0.0', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('clientError', onClientError);
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  logger?.info('listening', { port: actual });
  return {
    server,
    port: actual,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger?.warn('shutdown grace expired; closing remaining connections');
          server.closeAllConnections();
        }, graceMs);
        timer.unref();
        // Keep-alive connections whose request finishes after close() would otherwise stay open until the grace.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        sweep.unref();
        server.close(() => {
          clearTimeout(timer);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * Runs `shutdown` once on SIGTERM or SIGINT, then exits. For `main.ts` only; a second signal exits at once.
 */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info('shutting down', { signal });
    shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}

/** Runs a process's `main`, ending the process with one line naming the failure if it cannot start. For `main.ts`. */
export function startMain(name: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${name}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
