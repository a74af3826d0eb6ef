/**
 * The compose stack with replicas, without Docker: every app process docker-compose.yml lists, `replicas` times
 * (the gateway once), each with its compose environment adapted to this machine as test/deploy/local-stack.test.ts
 * does: the local FerretDB and Redis, a free port each, databases, auth database and queue prefix private to the
 * run. The gateway gets every replica's base URL, comma-separated, for each service; the services reach each other
 * through the gateway too (their `http://<service>:<port>` URLs point at it), as a Deployment's Service would
 * balance them, so a replica that dies is skipped there as well. Only the LLM provider is a local stand-in; it
 * counts chat calls by the trigger number `n` of the message, as test/chaos/chaos-stack.ts does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  createTestDatabases,
  freePort,
  startLocalServer,
  startServiceProcess,
  type LocalServer,
  type ServiceProcess,
  type TestDatabases,
} from '@platform/testing';

import {
  composeHealthPath,
  composeLocalEnv,
  composeServices,
  dropQueueKeys,
  ROOT,
  type LocalEnvContext,
} from '../deploy/deploy-helpers';

const compose = composeServices();

/** The app services of the compose file (those built from the Dockerfile), the gateway excluded. */
export const REPLICATED = Object.entries(compose)
  .filter(([name, s]) => s.build !== undefined && name !== 'gateway')
  .map(([name]) => name);

export interface ReplicaStackOptions {
  /** Processes of each service (the gateway is one); 2 by default. */
  replicas?: number;
  /** Added to the environment of every replica of a service, by service name (`gateway` too). */
  env?: Record<string, Record<string, string>>;
}

/** Starts the stack; `close()` stops every process and drops what the run stored. */
export async function startReplicaStack(opts: ReplicaStackOptions = {}) {
  const replicas = opts.replicas ?? 2;
  const dbs: TestDatabases = await createTestDatabases('replicas');
  const runId = dbs.conn.name;
  const uploadDir = mkdtempSync(join(tmpdir(), 'replicas-'));
  const calls = new Map<number, number>();
  const llm: LocalServer = await startLocalServer((req, res) => {
    const messages = (req.json as { messages?: { role: string; content: string }[] })?.messages ?? [];
    const text = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    let n = Number.NaN;
    try {
      n = Number((JSON.parse(text || '{}') as { n?: unknown }).n);
    } catch {
      // not a trigger's body
    }
    if (Number.isInteger(n)) calls.set(n, (calls.get(n) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: `done ${n}` }, finish_reason: 'stop' }],
      }),
    );
  });

  const gatewayPort = await freePort();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const ports: Record<string, number[]> = {};
  for (const name of REPLICATED) {
    ports[name] = [];
    for (let i = 0; i < replicas; i++) ports[name].push(await freePort());
  }
  const ctx = (port: number): LocalEnvContext => ({
    urls: Object.fromEntries(REPLICATED.map((n) => [n, gatewayUrl])),
    port,
    runId,
    authDb: dbs.authDb,
    uploadDir,
    publicBaseUrl: gatewayUrl,
  });
  const procs: Record<string, ServiceProcess[]> = {};
  // Each service process adds an exit listener to this one (to kill it if the test process dies first).
  process.setMaxListeners(Math.max(process.getMaxListeners(), 10 + REPLICATED.length * replicas + 1));
  const start = (name: string, port: number, env: Record<string, string>) =>
    startServiceProcess({
      script: join(ROOT, 'services', name, 'dist', 'main.js'),
      port,
      env: {
        ...env,
        LOG_LEVEL: 'warn',
        // The provider stand-in is a local server: allowed as an operator allows a self-hosted model.
        ...(name === 'agent' || name === 'rag' ? { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${llm.port}` } : {}),
        ...opts.env?.[name],
      },
      readyPath: composeHealthPath(compose[name]!),
      timeoutMs: 120_000,
    });

  try {
    const gatewayEnv = composeLocalEnv('gateway', {
      ...ctx(gatewayPort),
      urls: Object.fromEntries(
        REPLICATED.map((n) => [n, ports[n]!.map((p) => `http://127.0.0.1:${p}`).join(',')] as const),
      ),
    });
    procs.gateway = [await start('gateway', gatewayPort, gatewayEnv)];
    // The replicas start together: each waits for nothing but the stores (calls between them go through the
    // gateway, which skips a replica not listening yet).
    await Promise.all(
      REPLICATED.map(async (name) => {
        procs[name] = await Promise.all(
          ports[name]!.map((port) => start(name, port, composeLocalEnv(name, ctx(port)))),
        );
      }),
    );
  } catch (err) {
    await Promise.all(
      Object.values(procs)
        .flat()
        .map((p) => p.stop(0)),
    );
    throw err;
  }

  return {
    gateway: gatewayUrl,
    /** Every process by service name, replicas in order (`gateway` has one). */
    procs,
    llm,
    /** Provider chat calls by trigger number. */
    calls,
    dbs,
    /** The database of a service by its compose name (e.g. `scheduler`, shared by the worker). */
    db: (composeDb: string) => dbs.conn.useDb(`${runId}_${composeDb}`),
    runId,
    /** The first error-level log lines of every process. */
    errorLines: () =>
      Object.entries(procs).flatMap(([name, list]) =>
        list.flatMap((p, i) => p.errorLines().map((l) => `${name}#${i}: ${l}`)),
      ),
    async close() {
      await Promise.all(
        Object.values(procs)
          .flat()
          .map((p) => p.stop(5_000)),
      );
      await llm.close();
      const { databases } = await dbs.conn.db!.admin().listDatabases();
      for (const d of databases.filter((x) => x.name.startsWith(`${runId}_`) && x.name !== dbs.authDb))
        await dbs.conn
          .useDb(d.name)
          .dropDatabase()
          .catch(() => undefined);
      await dbs.cleanup().catch(() => undefined);
      rmSync(uploadDir, { recursive: true, force: true });
      await dropQueueKeys(runId);
    },
  };
}

export type ReplicaStack = Awaited<ReturnType<typeof startReplicaStack>>;
