import './tracing';

import { loadConfigOrExit } from '@platform/config';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { openInfra, runService, startMain } from '@platform/service';

import { createApp } from './app';
import { configSchema, type RaiServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit<RaiServiceConfig>(configSchema, process.env, 'rai');
  const logger = createLogger({ service: 'rai', level: config.LOG_LEVEL });
  const infra = await openInfra({ name: 'rai', config, logger });
  // The agent service is ours and usually on a private address: its host is allowed beside the operator's list.
  const agentHost = new URL(config.AGENT_URL).host;
  const outbound = createOutboundClient({
    allowHosts: [config.OUTBOUND_ALLOW_HOSTS, agentHost].filter(Boolean).join(','),
  });
  const secret = config.INTERNAL_SERVICE_SECRET || null;
  const app = createApp({
    logger,
    db: infra.db,
    auth: infra.auth,
    internalSecret: secret,
    outbound,
    agent: secret ? { baseUrl: config.AGENT_URL, secret, timeoutMs: config.AGENT_TIMEOUT_MS } : null,
    readiness: infra.readiness,
    jsonLimit: config.JSON_BODY_LIMIT,
  });
  await runService({
    name: 'rai',
    logger,
    app,
    port: config.PORT,
    infra,
    graceMs: config.SHUTDOWN_GRACE_MS,
    units: [() => ({ name: 'outbound client', stop: () => outbound.close() })],
  });
}

startMain('rai', main);
