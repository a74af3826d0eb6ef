/**
 * Offline checks of docker-compose.yml (and the root Dockerfile it builds from): MongoDB 7 as a replica set of one and
 * Redis 7 with AOF and noeviction, both health-checked; every contract process built from the root Dockerfile (its
 * own target) for an existing workspace service, on its contract port, started only once what it depends on is
 * healthy, read-only, with the environment its config schema asks for; the gateway in front of every service.
 * test/deploy/local-stack.test.ts starts these processes for real; test/deploy/compose-ha.test.ts checks
 * docker-compose.ha.yml over this file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { ROUTE_TABLE } from '../../services/gateway/src/routes';
import {
  composeApps,
  composeBuild,
  composeServices,
  CONTRACT_PORTS,
  dependsOn,
  envProblems,
  ROOT,
  STORE_IMAGES,
  toMap,
  type ComposeService,
} from './deploy-helpers';

const services = composeServices();
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const appServices = composeApps();
const build = composeBuild;

/** Published → container port pairs from short ("3002:3002", "127.0.0.1:3002:3002/tcp") and long syntax. */
function portPairs(ports: ComposeService['ports']): [number, number][] {
  return (ports ?? []).map((p) => {
    if (typeof p === 'object') return [Number(p.published), p.target];
    const parts = String(p)
      .replace(/\/(tcp|udp)$/, '')
      .split(':');
    return [Number(parts.at(-2)), Number(parts.at(-1))];
  });
}

/** "25s", "1m30s" → seconds. */
function seconds(duration: string | undefined): number {
  const m = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration ?? '');
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : 10; // compose's default
}

describe('docker-compose.yml infrastructure', () => {
  it.each(Object.entries(STORE_IMAGES))('%s runs the pinned major version with a healthcheck', (name, image) => {
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
    expect(services.redis?.command).toEqual(
      expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']),
    );
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
  });

  it('provides every variable the service requires, and only variables it reads', async () => {
    expect(await envProblems(name, env)).toEqual({ missing: [], unread: [], weakKeys: [] });
  });

  it('builds the Dockerfile target meant for it', () => {
    expect(build(s).target).toBe(name === 'ocr' || name === 'graph' ? name : 'runtime');
  });

  it('runs with a read-only root filesystem, a writable /tmp and no capabilities', () => {
    expect(s.read_only).toBe(true);
    expect([s.tmpfs ?? []].flat().some((m) => m === '/tmp' || m.startsWith('/tmp:'))).toBe(true);
    expect(s.cap_drop).toEqual(['ALL']);
  });

  it('lets the shutdown finish before SIGKILL: grace for units + grace for requests + closing', () => {
    const graceMs = Number(env.SHUTDOWN_GRACE_MS ?? 10000);
    expect(seconds(s.stop_grace_period) * 1000).toBeGreaterThan(2 * graceMs + 2000);
  });
});

describe('docker-compose.yml gateway', () => {
  const gateway = services.gateway!;
  const env = toMap(gateway.environment);

  it('routes every path prefix of contract §7 to a compose service on its contract port, after it is healthy', () => {
    for (const { service } of ROUTE_TABLE) {
      expect({ service, url: env[`${service.toUpperCase()}_URL`] }).toEqual({
        service,
        url: `http://${service}:${CONTRACT_PORTS[service]}`,
      });
      expect({ service, condition: dependsOn(gateway)[service] }).toEqual({ service, condition: 'service_healthy' });
      expect(services[service]).toBeDefined();
    }
  });

  it('lists every contract process, the worker included', () => {
    expect(appServices.map(([n]) => n).sort()).toEqual(Object.keys(CONTRACT_PORTS).sort());
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

  /** The instructions of one stage, by its name. */
  function stage(name: string): string[] {
    const start = instructions.findIndex((l) => new RegExp(`^FROM \\S+ AS ${name}$`, 'i').test(l));
    if (start < 0) return [];
    const next = instructions.findIndex((l, i) => i > start && /^FROM /i.test(l));
    return instructions.slice(start, next < 0 ? undefined : next);
  }
  const SYSTEM_PACKAGES = { ocr: ['poppler-utils', 'tesseract-ocr'], graph: ['chromium'] };

  it('has a target per kind of image: ocr and graph with their system packages, runtime (the default) with none', () => {
    expect(stages.at(-1)).toMatch(/ AS runtime$/);
    for (const [target, packages] of Object.entries(SYSTEM_PACKAGES)) {
      const install = stage(target).find((l) => /apt-get install/.test(l)) ?? '';
      for (const pkg of packages) expect(install.split(/\s+/)).toContain(pkg);
      expect(stage(target)).toContain('USER node');
      expect(stage(target)).toContain('CMD ["node", "dist/main.js"]');
      expect(stage(target).join('\n')).toMatch(new RegExp(`test "\\$\\{SERVICE\\}" = ${target} \\|\\|`));
    }
    const elsewhere = instructions.filter((l) => !stage('ocr').includes(l) && !stage('graph').includes(l));
    for (const pkg of Object.values(SYSTEM_PACKAGES).flat()) {
      expect(elsewhere.filter((l) => l.split(/\s+/).includes(pkg))).toEqual([]);
    }
    expect(stage('runtime').join('\n')).toMatch(/case "\$\{SERVICE\}" in ocr\|graph\)/);
  });

  it('is not fed node_modules or build output by the build context', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
    for (const needed of [
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'libs',
      'services',
      'tsconfig.base.json',
    ]) {
      expect(ignore).not.toContain(needed);
    }
  });
});
