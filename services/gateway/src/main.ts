import './tracing';

import { loadConfigOrExit } from '@platform/config';
import { listen, onShutdownSignal, startMain } from '@platform/http';
import { createLogger } from '@platform/logger';

import { createApp } from './app';
import { configSchema, upstreamList, upstreamVariable, type GatewayConfig } from './config';
import { ROUTE_TABLE } from './routes';

async function main(): Promise<void> {
  const config = loadConfigOrExit<GatewayConfig>(configSchema, process.env, 'gateway');
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const upstreams = Object.fromEntries(
    ROUTE_TABLE.flatMap((r) => {
      const value = config[upstreamVariable(r.service) as `${string}_URL`];
      return value ? [[r.service, upstreamList(value)]] : [];
    }),
  );
  const app = createApp({
    logger,
    upstreams,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    traceUiUrl: config.TRACE_UI_URL,
  });
  const server = await listen(app, config.PORT, logger);
  logger.info('routing', {
    upstreams: Object.fromEntries(Object.entries(upstreams).map(([s, list]) => [s, list.map((u) => u.origin)])),
  });
  onShutdownSignal(logger, () => server.close(config.SHUTDOWN_GRACE_MS));
}

startMain('gateway', main);
