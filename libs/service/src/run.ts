import type { Express } from 'express';

import { listen, onShutdownSignal } from '@platform/http';
import type { Logger } from '@platform/logger';
import { closeWithin } from '@platform/queue';
import { stopTracing } from '@platform/tracing';

import type { Stores } from './infra';

export { startMain } from '@platform/http';

/** Something a process runs beside its HTTP server (a timer, a queue consumer) and stops on shutdown. */
export interface Unit {
  name: string;
  stop(): Promise<unknown> | void;
}

export interface RunOptions {
  name: string;
  logger: Logger;
  app: Express;
  port: number;
  infra: Stores;
  /** How long SIGTERM waits for in-flight requests (and units). */
  graceMs: number;
  /** Started after the indexes exist, stopped first on shutdown (in reverse order). */
  units?: (() => Unit)[];
}

/**
 * Prepares the database, starts the units, listens, and on SIGTERM/SIGINT stops in order: the units (new work),
 * the server (in-flight requests within the grace), then the connections, then tracing (its queued spans sent).
 * Only for `main.ts`.
 */
export async function runService(opts: RunOptions): Promise<void> {
  await opts.infra.prepare();
  const units = (opts.units ?? []).map((start) => start());
  const server = await listen(opts.app, opts.port, opts.logger);
  onShutdownSignal(opts.logger, async () => {
    const stopped = await closeWithin(opts.graceMs, ...[...units].reverse().map((u) => async () => u.stop()));
    if (!stopped) opts.logger.warn('units did not stop within the grace', { units: units.map((u) => u.name) });
    await server.close(opts.graceMs);
    await opts.infra.close();
    await stopTracing(); // the last spans (the shutdown's own included) go out before the process ends
  });
}
