/** What the deployment tests share: the contract's ports, the services' config schemas, the k8s tools. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

import { describeConfig } from '@platform/config';
import { producerConnection } from '@platform/queue';
import { testInfra } from '@platform/testing';

export const ROOT = resolve(__dirname, '../..');
export const K8S = join(ROOT, 'k8s');

/** Contract §1 ports. */
export const CONTRACT_PORTS: Record<string, number> = {
  scheduler: 3001,
  agent: 3002,
  rag: 3003,
  rai: 3004,
  voice: 3005,
  graph: 3006,
  ocr: 3007,
  worker: 3008,
  gateway: 8080,
};

/**
 * Read by Node itself, by every service once it uses Redis, or by every service's tracing (the OpenTelemetry
 * exporter's standard variable: empty or unset, tracing is off), so allowed beside a service's own config schema.
 */
export const RUNTIME_VARS = ['NODE_OPTIONS', 'REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT'];

/** The variables services/<service>/src/config.ts declares; undefined while the service has no config schema yet. */
export async function configVariables(service: string): Promise<{ name: string; required: boolean }[] | undefined> {
  const path = join(ROOT, 'services', service, 'src', 'config.ts');
  if (!existsSync(path)) return undefined;
  const mod = (await import(path)) as { configSchema?: Parameters<typeof describeConfig>[0] };
  return mod.configSchema ? describeConfig(mod.configSchema) : undefined;
}

/**
 * What is wrong with the environment a deployment gives a service: required variables it lacks, variables the
 * service does not read, and encryption keys that are not 32 random-looking bytes in hex. Throws without a config schema.
 */
export async function envProblems(
  service: string,
  env: Record<string, string | undefined>,
): Promise<{ missing: string[]; unread: string[]; weakKeys: string[] }> {
  const vars = await configVariables(service);
  if (!vars) throw new Error(`services/${service}/src/config.ts exports no configSchema`);
  const known = new Set([...vars.map((v) => v.name), ...RUNTIME_VARS]);
  return {
    missing: vars.filter((v) => v.required && env[v.name] === undefined).map((v) => v.name),
    unread: Object.keys(env).filter((k) => !known.has(k)),
    weakKeys: Object.entries(env)
      .filter(
        ([k, v]) => k.endsWith('_ENCRYPTION_KEY') && (!/^[0-9a-fA-F]{64}$/.test(v ?? '') || /^(.)\1*$/.test(v ?? '')),
      )
      .map(([k]) => k),
  };
}

/** Builds (once) the pinned kustomize and kubeconform into .tools/bin and returns their paths. */
export function k8sTools(): { kustomize: string; kubeconform: string } {
  execFileSync('bash', [join(ROOT, 'scripts/install-k8s-tools.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { kustomize: join(ROOT, '.tools/bin/kustomize'), kubeconform: join(ROOT, '.tools/bin/kubeconform') };
}

type Scalar = string | number | boolean | null;
export interface ComposeBuild {
  context?: string;
  dockerfile?: string;
  target?: string;
  args?: Record<string, Scalar> | string[];
}
export interface ComposeService {
  image?: string;
  build?: string | ComposeBuild;
  /** Started only when one of these profiles is asked for (`docker compose --profile <name>`). */
  profiles?: string[];
  ports?: (string | number | { target: number; published?: string | number })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  command?: string | string[];
  environment?: Record<string, Scalar> | string[];
  stop_grace_period?: string;
  read_only?: boolean;
  tmpfs?: string | string[];
  cap_drop?: string[];
}

/** docker-compose.yml's services, YAML merge keys (<<: *app-env) applied. */
export function composeServices(): Record<string, ComposeService> {
  const file = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services?: Record<string, ComposeService>;
  };
  return file.services ?? {};
}

/** `KEY=value` lists and maps alike, as strings; `${VAR:-default}` becomes its default. */
export function toMap(value: Record<string, Scalar> | string[] | undefined): Record<string, string> {
  const entries = Array.isArray(value)
    ? value.map((e) => (e.includes('=') ? [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] : [e, '']))
    : Object.entries(value ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]);
  return Object.fromEntries(entries.map(([k, v]) => [k, v!.replace(/\$\{[A-Z0-9_]+:?-([^}]*)\}/g, '$1')]));
}

/** The pinned major versions of the stores docker-compose.yml runs (and docker-compose.ha.yml replicates). */
export const STORE_IMAGES = { mongo: /^mongo:7(\.|$)/, redis: /^redis:7(\.|-|$)/ };

/** docker-compose.yml's app services: those built from the root Dockerfile, by name. */
export function composeApps(): [string, ComposeService][] {
  return Object.entries(composeServices()).filter(([, s]) => s.build !== undefined);
}

export function composeBuild(s: ComposeService): ComposeBuild {
  return typeof s.build === 'string' ? { context: s.build } : (s.build ?? {});
}

/** The services a compose service waits for, with the condition of each. */
export function dependsOn(s: ComposeService): Record<string, string | undefined> {
  if (Array.isArray(s.depends_on)) return Object.fromEntries(s.depends_on.map((n) => [n, undefined]));
  return Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([n, d]) => [n, d.condition]));
}

/** The path a compose healthcheck asks, e.g. /readyz. */
export function composeHealthPath(s: ComposeService): string {
  const path = /127\.0\.0\.1:\d+(\/[a-z]+)/.exec(JSON.stringify(s.healthcheck?.test ?? ''))?.[1];
  if (!path) throw new Error('no healthcheck URL');
  return path;
}

export interface LocalEnvContext {
  /** Where `http://<service>:<port>` URLs of the compose file point, by service name. */
  urls: Record<string, string>;
  port: number;
  /** Prefixes the compose database names (and the queue prefix). */
  runId: string;
  authDb: string;
  uploadDir: string;
  publicBaseUrl: string;
  mongoUri?: string;
  redisUrl?: string;
}

/** The compose environment of `name`, pointed at this machine (see the file's comment). */
export function composeLocalEnv(name: string, ctx: LocalEnvContext): Record<string, string> {
  const local: Record<string, string> = {};
  for (const [k, v] of Object.entries(toMap(composeServices()[name]!.environment))) {
    const url = /^(https?):\/\/([a-z0-9-]+):(\d+)(.*)$/.exec(v);
    local[k] = url && ctx.urls[url[2]!] !== undefined ? `${ctx.urls[url[2]!]}${url[4]}` : v;
  }
  const redisUrl = ctx.redisUrl ?? testInfra.redisUrl;
  local.PORT = String(ctx.port);
  local.MONGODB_URI = ctx.mongoUri ?? testInfra.mongoUri;
  local.REDIS_URL = redisUrl;
  if (local.RATE_LIMIT_REDIS_URL) local.RATE_LIMIT_REDIS_URL = redisUrl;
  if (local.MONGODB_DB) local.MONGODB_DB = `${ctx.runId}_${local.MONGODB_DB}`;
  local.AUTH_DB = ctx.authDb;
  local.QUEUE_PREFIX = ctx.runId;
  if (local.UPLOAD_DIR) local.UPLOAD_DIR = join(ctx.uploadDir, name);
  if (local.PUBLIC_BASE_URL) local.PUBLIC_BASE_URL = ctx.publicBaseUrl;
  if (local.VECTOR_STORE_URI) local.VECTOR_STORE_URI = join(ctx.uploadDir, 'vectors');
  return local;
}

/** Deletes the keys a run's processes left in the shared Redis under its queue prefix. */
export async function dropQueueKeys(prefix: string): Promise<void> {
  const redis = producerConnection(testInfra.redisUrl);
  try {
    await new Promise((resolve) => redis.once('ready', resolve));
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
