/**
 * Offline checks of docker-compose.yml (and the root Dockerfile it builds from): infrastructure with healthchecks,
 * every app service built from the root Dockerfile for an existing workspace service, on its contract port, started
 * only once MongoDB and Redis are healthy, with the environment its config schema asks for.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describeConfig } from '@platform/config';

const ROOT = resolve(__dirname, '../..');

/** Contract §1 ports. */
const CONTRACT_PORTS: Record<string, number> = {
  scheduler: 3001, agent: 3002, rag: 3003, rai: 3004, voice: 3005, graph: 3006, ocr: 3007, worker: 3008, gateway: 8080,
};
/** Read by Node itself or by every service once it uses Redis, so allowed beside a service's own config schema. */
const RUNTIME_VARS = ['NODE_OPTIONS', 'REDIS_URL'];
const INFRA = { mongo: /^mongo:7(\.|$)/, redis: /^redis:7(\.|-|$)/ };

type Scalar = string | number | boolean | null;
interface Build {
  context?: string;
  dockerfile?: string;
  args?: Record<string, Scalar> | string[];
}
interface ComposeService {
  image?: string;
  build?: string | Build;
  ports?: (string | number | { target: number; published?: string | number })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  command?: string | string[];
  environment?: Record<string, Scalar> | string[];
}
interface ComposeFile {
  services?: Record<string, ComposeService>;
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
const services = compose.services ?? {};
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const appServices = Object.entries(services).filter(([, s]) => s.build !== undefined);

/** `KEY=value` lists and maps alike, as strings; `${VAR:-default}` becomes its default. */
function toMap(value: Record<string, Scalar> | string[] | undefined): Record<string, string> {
  const entries = Array.isArray(value)
    ? value.map((e) => (e.includes('=') ? [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] : [e, '']))
    : Object.entries(value ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]);
  return Object.fromEntries(entries.map(([k, v]) => [k, v!.replace(/\$\{[A-Z0-9_]+:?-([^}]*)\}/g, '$1')]));
}

/** Published → container port pairs from short ("3002:3002", "127.0.0.1:3002:3002/tcp") and long syntax. */
function portPairs(ports: ComposeService['ports']): [number, number][] {
  return (ports ?? []).map((p) => {
    if (typeof p === 'object') return [Number(p.published), p.target];
    const parts = String(p).replace(/\/(tcp|udp)$/, '').split(':');
    return [Number(parts.at(-2)), Number(parts.at(-1))];
  });
}

function dependsOn(s: ComposeService): Record<string, string | undefined> {
  if (Array.isArray(s.depends_on)) return Object.fromEntries(s.depends_on.map((n) => [n, undefined]));
  return Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([n, d]) => [n, d.condition]));
}

function build(s: ComposeService): Build {
  return typeof s.build === 'string' ? { context: s.build } : (s.build ?? {});
}

async function configVariables(service: string): Promise<{ name: string; required: boolean }[] | undefined> {
  const path = join(ROOT, 'services', service, 'src', 'config.ts');
  if (!existsSync(path)) return undefined;
  const mod = (await import(path)) as { configSchema?: Parameters<typeof describeConfig>[0] };
  return mod.configSchema ? describeConfig(mod.configSchema) : undefined;
}

describe('docker-compose.yml infrastructure', () => {
  it.each(Object.entries(INFRA))('%s runs the pinned major version with a healthcheck', (name, image) => {
    const s = services[name];
    expect(s?.image).toMatch(image);
    expect(s?.healthcheck?.disable ?? false).toBe(false);
    expect(s?.healthcheck?.test?.length).toBeGreaterThan(0);
  });

  it('has app services built from source', () => {
    expect(appServices.map(([name]) => name)).toContain('agent');
  });

  it('runs MongoDB as a replica set of one and Redis with AOF and noeviction', () => {
    expect(services.mongo?.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(JSON.stringify(services.mongo?.healthcheck?.test)).toMatch(/rs\.initiate/);
    expect(services.redis?.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
  });
});

describe.each(appServices)('docker-compose.yml service %s', (name, s) => {
  const args = toMap(build(s).args);
  const env = toMap(s.environment);
  const port = CONTRACT_PORTS[name];

  it('builds from the root Dockerfile for an existing workspace service', () => {
    expect(resolve(ROOT, build(s).context ?? '.')).toBe(ROOT);
    expect(resolve(ROOT, build(s).dockerfile ?? 'Dockerfile')).toBe(join(ROOT, 'Dockerfile'));
    expect(args.SERVICE).toBe(name);
    const pkgPath = join(ROOT, 'services', name, 'package.json');
    expect(existsSync(pkgPath)).toBe(true);
    // The Dockerfile deploys the package @platform/${SERVICE}-service.
    expect((JSON.parse(readFileSync(pkgPath, 'utf8')) as { name: string }).name).toBe(`@platform/${name}-service`);
    for (const arg of Object.keys(args)) expect(dockerfile).toMatch(new RegExp(`^ARG ${arg}(=|\\s|$)`, 'm'));
  });

  it('listens on and publishes its contract port', () => {
    expect(port).toBeDefined();
    expect(Number(args.PORT)).toBe(port);
    expect(Number(env.PORT)).toBe(port);
    expect(portPairs(s.ports)).toContainEqual([port, port]);
  });

  it('starts after MongoDB and Redis are healthy and has its own healthcheck', () => {
    expect(dependsOn(s)).toMatchObject({ mongo: 'service_healthy', redis: 'service_healthy' });
    expect(JSON.stringify(s.healthcheck?.test)).toMatch(/\/(readyz|healthz)/);
  });

  it('reaches MongoDB and Redis by their compose names', () => {
    expect(new URL(env.MONGODB_URI ?? '').hostname).toBe('mongo');
    expect(new URL(env.MONGODB_URI ?? '').searchParams.get('replicaSet')).toBe('rs0');
    expect(new URL(env.REDIS_URL ?? '').hostname).toBe('redis');
    if (env.CREDENTIALS_ENCRYPTION_KEY !== undefined) {
      expect(env.CREDENTIALS_ENCRYPTION_KEY).toMatch(/^[0-9a-fA-F]{64}$/);
      expect(env.CREDENTIALS_ENCRYPTION_KEY).not.toMatch(/^(.)\1*$/);
    }
  });

  it('provides every variable the service requires, and only variables it reads', async () => {
    const vars = await configVariables(name);
    if (!vars) return; // no services/<name>/src/config.ts with a configSchema yet: nothing to compare against
    const known = new Set([...vars.map((v) => v.name), ...RUNTIME_VARS]);
    expect(vars.filter((v) => v.required && env[v.name] === undefined).map((v) => v.name)).toEqual([]);
    expect(Object.keys(env).filter((k) => !known.has(k))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages = instructions.filter((l) => /^FROM /i.test(l));
  const runtime = instructions.slice(instructions.lastIndexOf(stages.at(-1)!));

  it('is multi-stage on Node 20 slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20[-.\w]*-slim$/m);
  });

  it('installs from the lockfile with the pinned pnpm and deploys a pruned production tree', () => {
    const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string };
    expect(dockerfile).toContain(`npm i -g ${rootPkg.packageManager}`);
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile/);
    expect(dockerfile).toMatch(/pnpm --filter "@platform\/\$\{SERVICE\}-service" deploy .*--prod \/out/);
  });

  it('runs node dist/main.js as the non-root node user and exposes the port', () => {
    expect(runtime).toContain('USER node');
    expect(runtime).toContain('CMD ["node", "dist/main.js"]');
    expect(runtime).toContain('EXPOSE ${PORT}');
    expect(runtime.some((l) => /^COPY --from=build \/out\/? /.test(l))).toBe(true);
  });

  it('is not fed node_modules or build output by the build context', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
    for (const needed of ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'libs', 'services', 'tsconfig.base.json']) {
      expect(ignore).not.toContain(needed);
    }
  });
});
