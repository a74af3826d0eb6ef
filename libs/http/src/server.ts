import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '@platform/logger';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, waits for in-flight requests up to `graceMs`, then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

/** Listens on `port` (0 = any free port) and resolves once listening. */
export async function listen(app: Express, port: number, logger?: Logger, host?: string): Promise<RunningServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host ?? '0.0.0.0', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
