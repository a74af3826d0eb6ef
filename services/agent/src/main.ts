import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { loadConfigOrExit } from '@platform/config';
import { connectMongo, pingMongo, syncIndexes } from '@platform/db';
import { listen, onShutdownSignal } from '@platform/http';
import { createLogger } from '@platform/logger';
import { createOutboundClient } from '@platform/outbound';
import { createSecretBox, parseKey } from '@platform/secrets';
import { createApp } from './app';
import { configSchema, type AgentServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit<AgentServiceConfig>(configSchema, process.env, 'agent');
  const logger = createLogger({ service: 'agent', level: config.LOG_LEVEL });
  const mongo = { uri: config.MONGODB_URI, serverSelectionTimeoutMS: config.DB_SERVER_SELECTION_TIMEOUT_MS, logger };
  const db = await connectMongo({ ...mongo, dbName: config.MONGODB_DB, appName: 'agent' });
  const authDb = await connectMongo({ ...mongo, dbName: config.AUTH_DB, appName: 'agent-auth' });
  const keys = createApiKeyRepository(authDb);
  const outbound = createOutboundClient({ allowHosts: config.OUTBOUND_ALLOW_HOSTS });

  const app = createApp({
    logger,
    db,
    auth: createApiKeyAuth({ keys, cacheTtlMs: config.API_KEY_CACHE_TTL_MS }),
    box: createSecretBox(parseKey(config.CREDENTIALS_ENCRYPTION_KEY)),
    outbound,
    providerTimeoutMs: config.PROVIDER_TIMEOUT_MS,
    toolTimeoutMs: config.TOOL_CALL_TIMEOUT_MS,
    toolEnhancer: { baseUrl: config.TOOL_ENHANCE_BASE_URL, model: config.TOOL_ENHANCE_MODEL },
    internalSecret: config.INTERNAL_SERVICE_SECRET || null,
    readiness: { mongodb: () => pingMongo(db) },
    jsonLimit: config.JSON_BODY_LIMIT,
  });
  await syncIndexes(db);
  await keys.init();

  const server = await listen(app, config.PORT, logger);
  onShutdownSignal(logger, async () => {
    await server.close(config.SHUTDOWN_GRACE_MS);
    outbound.close();
    await Promise.all([db.close(), authDb.close()]);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
