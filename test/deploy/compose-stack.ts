/**
 * The compose stack without Docker: every process docker-compose.yml lists is started with its image's entry point
 * (the Dockerfile target's CMD, run in services/<SERVICE>/, the folder the image deploys) and its compose
 * environment, adapted to this machine: the local FerretDB and Redis instead of the mongo and redis containers, a
 * free port each instead of the contract ports, compose host names replaced by 127.0.0.1 and those ports, and names
 * (databases, queue prefix, upload folder) private to this run. They start in the compose file's depends_on order,
 * each once its compose healthcheck path answers; an API key is minted by the README's command. The provider
 * stand-in answers chat completions ("stack answer") and embeddings (a bag of words). Used by the local-stack test and
 * the tracing test (which adds the OTEL_* variables).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connectMongo } from '@platform/db';
import {
  freePort,
  startLocalServer,
  startServiceProcess,
  testInfra,
  uniqueName,
  type LocalServer,
  type ServiceProcess,
} from '@platform/testing';

import {
  composeBuild,
  composeHealthPath,
  composeLocalEnv,
  composeServices,
  dependsOn,
  dropQueueKeys,
  ROOT,
  toMap,
  type ComposeService,
} from './deploy-helpers';

export const compose = composeServices();
export const apps = Object.entries(compose).filter(([, s]) => s.build !== undefined);
// What `docker compose up` starts besides the apps; a service under a profile (jaeger: "tracing") starts only if asked.
export const INFRA = Object.keys(compose).filter(
  (n) => compose[n]!.build === undefined && !compose[n]!.profiles?.length,
);
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');

/** The CMD of a Dockerfile stage (exec form), e.g. ["node", "dist/main.js"]. */
function stageCmd(target: string): string[] {
  const lines = dockerfile.split('\n').map((l) => l.trim());
  const start = lines.findIndex((l) => new RegExp(`^FROM \\S+ AS ${target}$`, 'i').test(l));
  if (start < 0) throw new Error(`Dockerfile has no stage ${target}`);
  const end = lines.findIndex((l, i) => i > start && /^FROM /i.test(l));
  const cmd = lines.slice(start, end < 0 ? undefined : end).find((l) => l.startsWith('CMD '));
  if (!cmd) throw new Error(`Dockerfile stage ${target} has no CMD`);
  return JSON.parse(cmd.slice(4)) as string[];
}

/** The entry point the image of a compose service runs: `node <script>` in the deployed service folder. */
export function entryPoint(s: ComposeService): string {
  const b = composeBuild(s);
  const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gim)].map((m) => m[1]!);
  const [bin, script, ...rest] = stageCmd(b.target ?? stages.at(-1)!);
  if (bin !== 'node' || !script || rest.length > 0) throw new Error(`unexpected CMD ${String(bin)} ${String(script)}`);
  return join(ROOT, 'services', toMap(b.args).SERVICE!, script);
}

/** App services in start order: a service after everything it depends on (levels start together). */
export function startLevels(): string[][] {
  const levels: string[][] = [];
  const done = new Set(INFRA);
  let left = apps.map(([n]) => n);
  while (left.length > 0) {
    const ready = left.filter((n) => Object.keys(dependsOn(compose[n]!)).every((d) => done.has(d)));
    if (ready.length === 0) throw new Error(`depends_on cycle or unknown service among ${left.join(', ')}`);
    levels.push(ready);
    ready.forEach((n) => done.add(n));
    left = left.filter((n) => !ready.includes(n));
  }
  return levels;
}

/** A bag of words hashed into 16 dimensions (same words, same direction): the stand-in's embeddings. */
function bagOfWords(text: string): number[] {
  const v = Array.from({ length: 16 }, () => 0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const c of w) h = (h * 31 + c.charCodeAt(0)) % 16;
    v[h]! += 1;
  }
  v[0]! += 0.01; // never the zero vector
  return v;
}

/** A RAG configuration of the stand-in's models on the local vector store, every credential the one given. */
export const localRagConfig = (credentialId: string, collection: string) => ({
  llm_credential_id: credentialId,
  embedding_credential_id: credentialId,
  vector_db_credential_id: credentialId,
  collection_name: collection,
  llm_model: 'local-model',
  embedding_model: 'local-embedding',
  vector_store_provider: 'local',
});

export interface ComposeStack {
  /** The run's own prefix of databases and queue keys. */
  runId: string;
  procs: Record<string, ServiceProcess>;
  /** How each process ended, once it has. */
  exits: Record<string, { code: number | null; signal: NodeJS.Signals | null }>;
  llm: LocalServer;
  /** The gateway's URL. */
  gateway: string;
  /** An API key of the stack's user, minted by the README's command. */
  key: string;
  /** Stops what is still running and drops the run's databases, queue keys and upload folder. */
  close(): Promise<void>;
}

/** Variables a caller adds to a service's environment (e.g. OTEL_* for tracing), knowing the provider stand-in. */
export type ExtraEnv = (service: string, llm: LocalServer) => Record<string, string>;

/** Starts the stack, each service's environment with `extraEnv`'s variables added. */
export async function startComposeStack(extraEnv: ExtraEnv = () => ({})): Promise<ComposeStack> {
  const runId = uniqueName('stack');
  const ports: Record<string, number> = {};
  const procs: Record<string, ServiceProcess> = {};
  const exits: ComposeStack['exits'] = {};
  const uploadDir = mkdtempSync(join(tmpdir(), 'stack-uploads-'));
  const llm = await startLocalServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url.endsWith('/embeddings')) {
      // OpenAI-protocol embeddings: a bag of words hashed into 16 dimensions (same words, same direction).
      const inputs = (req.json as { input: string[] }).input;
      res.end(
        JSON.stringify({ object: 'list', data: inputs.map((t, index) => ({ index, embedding: bagOfWords(t) })) }),
      );
      return;
    }
    res.end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'stack answer' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
      }),
    );
  });
  /** The compose environment of a service, pointed at this machine (see the file's comment). */
  const localEnv = (name: string): Record<string, string> => {
    const local = composeLocalEnv(name, {
      urls: Object.fromEntries(Object.entries(ports).map(([n, p]) => [n, `http://127.0.0.1:${p}`])),
      port: ports[name]!,
      runId,
      authDb: `${runId}_auth`,
      uploadDir,
      publicBaseUrl: `http://127.0.0.1:${ports.gateway}`,
    });
    // The provider stand-in is a local server: allowed as an operator allows a self-hosted model (the agent's chat,
    // the rag service's embeddings).
    if (name === 'agent' || name === 'rag') local.OUTBOUND_ALLOW_HOSTS = `127.0.0.1:${llm.port}`;
    local.LOG_LEVEL = 'info';
    return { ...local, ...extraEnv(name, llm) };
  };
  // Every port is chosen before the first service starts (each environment names them all), so another process may
  // take one meanwhile (an outgoing connection's local port, on a busy machine): then what started is stopped and the
  // stack starts again on new ports, up to 3 times.
  for (let attempt = 1; ; attempt++) {
    for (const [name] of apps) ports[name] = await freePort();
    try {
      for (const level of startLevels()) {
        const started = await Promise.allSettled(
          level.map(async (name) => {
            const s = compose[name]!;
            procs[name] = await startServiceProcess({
              script: entryPoint(s),
              port: ports[name],
              env: localEnv(name),
              readyPath: composeHealthPath(s),
              timeoutMs: 60_000,
            });
            procs[name].child.once('exit', (code, signal) => (exits[name] = { code, signal }));
          }),
        );
        for (const r of started) if (r.status === 'rejected') throw r.reason;
      }
      break;
    } catch (err) {
      await Promise.all(Object.values(procs).map((p) => p.stop(5_000)));
      for (const name of Object.keys(procs)) delete procs[name];
      for (const name of Object.keys(exits)) delete exits[name];
      if (attempt < 3 && /port taken by another process/.test(String(err))) continue;
      await llm.close();
      rmSync(uploadDir, { recursive: true, force: true });
      throw err;
    }
  }
  // The README's command (pnpm apikey create runs this CLI), against this run's auth database.
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'libs/auth/dist/cli.js'), 'create', '--user', 'stack-user', '--org', 'stack-org', '--name', 'stack'],
    { env: { ...process.env, MONGODB_URI: testInfra.mongoUri, AUTH_DB: `${runId}_auth` }, encoding: 'utf8' },
  );
  const key = out.trim().split('\n').at(-1)!.trim();
  return {
    runId,
    procs,
    exits,
    llm,
    gateway: procs.gateway!.url,
    key,
    async close() {
      await Promise.all(Object.values(procs).map((p) => p.stop(30_000)));
      await llm.close();
      rmSync(uploadDir, { recursive: true, force: true });
      const conn = await connectMongo({ uri: testInfra.mongoUri, dbName: `${runId}_auth` });
      const { databases } = await conn.db!.admin().listDatabases();
      for (const d of databases.filter((x) => x.name.startsWith(`${runId}_`))) await conn.useDb(d.name).dropDatabase();
      await conn.close();
      await dropQueueKeys(runId);
    },
  };
}
