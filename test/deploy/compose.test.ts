/**
 * Offline checks of docker-compose.yml (and the root Dockerfile it builds from): MongoDB 7 as a replica set of one and
 * Redis 7 with AOF and noeviction, both health-checked; every contract process built from the root Dockerfile (its
 * own target) for an existing workspace service, on its contract port, started only once what it depends on is
 * healthy, read-only, with the environment its config schema asks for; the gateway in front of every service.
 * test/deploy/local-stack.test.ts starts these processes for real.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, YAMLMap, type YAMLSeq } from 'yaml';

import { ROUTE_TABLE } from '../../services/gateway/src/routes';
import {
  composeBuild,
  composeServices,
  CONTRACT_PORTS,
  dependsOn,
  envProblems,
  ROOT,
  toMap,
  type ComposeService,
} from './deploy-helpers';

const INFRA = { mongo: /^mongo:7(\.|$)/, redis: /^redis:7(\.|-|$)/ };

const services = composeServices();
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const appServices = Object.entries(services).filter(([, s]) => s.build !== undefined);
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

/**
 * docker-compose.ha.yml, laid over docker-compose.yml (`docker compose -f docker-compose.yml -f docker-compose.ha.yml`):
 * a 3-member MongoDB replica set and a 6-node Redis Cluster, each made by a one-shot init service, every app service
 * pointed at both and run twice where it can be. The files are merged here as Compose merges them.
 */
describe('docker-compose.ha.yml (HA topology over docker-compose.yml)', () => {
  type Tagged = { composeTag: '!reset' | '!override'; value: unknown };
  type Node = Record<string, unknown>;
  const tag = (name: string) => ({
    tag: name,
    collection: 'seq' as const,
    resolve: (seq: YAMLSeq) => {
      const m = new YAMLMap();
      m.set('composeTag', name);
      m.set('value', seq);
      return m;
    },
  });
  const haFile = parse(readFileSync(join(ROOT, 'docker-compose.ha.yml'), 'utf8'), {
    merge: true,
    customTags: [tag('!reset'), tag('!override')],
  }) as { services: Record<string, Node>; volumes?: Record<string, unknown> };
  const baseFile = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Node>;
  };

  const isTagged = (v: unknown): v is Tagged =>
    typeof v === 'object' && v !== null && 'composeTag' in v && 'value' in v;
  const isMap = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
  /** Compose's merge of an override file: maps merge, ports add up, volumes replace by target, the rest replaces. */
  function merge(base: Node, over: Node): Node {
    const out: Node = { ...base };
    for (const [key, value] of Object.entries(over)) {
      const before = out[key];
      if (isTagged(value)) {
        if (value.composeTag === '!reset') delete out[key];
        else out[key] = value.value;
      } else if (isMap(before) && isMap(value)) {
        out[key] = merge(before, value);
      } else if (key === 'ports' && Array.isArray(before) && Array.isArray(value)) {
        out[key] = [...new Set([...(before as unknown[]), ...value])];
      } else if (key === 'volumes' && Array.isArray(before) && Array.isArray(value)) {
        const target = (v: unknown) => String(v).split(':')[1];
        const kept = (before as unknown[]).filter((b) => !value.some((v) => target(v) === target(b)));
        out[key] = [...kept, ...value];
      } else {
        out[key] = value;
      }
    }
    return out;
  }
  const merged: Record<
    string,
    ComposeService & { deploy?: { replicas?: number }; restart?: string; volumes?: string[] }
  > = Object.fromEntries(
    [...new Set([...Object.keys(baseFile.services), ...Object.keys(haFile.services)])].map((n) => [
      n,
      merge(baseFile.services[n] ?? {}, haFile.services[n] ?? {}),
    ]),
  );
  const commandText = (s: ComposeService): string => {
    const env = toMap(s.environment);
    return [s.command ?? []]
      .flat()
      .join(' ')
      .replace(/\$\$([A-Z_]+)/g, (_m, v: string) => env[v] ?? '');
  };

  const MONGO_MEMBERS = ['mongo', 'mongo-1', 'mongo-2'];
  const redisNodes = Object.keys(merged).filter((n) => /--cluster-enabled yes/.test(commandText(merged[n]!)));
  const appNames = appServices.map(([n]) => n);

  it('defines in full every service it adds, and overrides every app service of the base', () => {
    expect(Object.keys(haFile.services)).toEqual(expect.arrayContaining(appNames));
    for (const [name, s] of Object.entries(merged)) {
      expect({ name, defined: s.image !== undefined || s.build !== undefined }).toEqual({ name, defined: true });
    }
  });

  it('runs a 3-member MongoDB replica set rs0, each member health-checked, on volumes of its own', () => {
    const members = Object.keys(merged).filter((n) => /^mongo(:|$)/.test(merged[n]!.image ?? '') || n === 'mongo');
    expect(members.filter((n) => n !== 'mongo-init').sort()).toEqual(MONGO_MEMBERS);
    const volumes = MONGO_MEMBERS.map((n) => merged[n]!.volumes ?? []);
    for (const n of MONGO_MEMBERS) {
      const s = merged[n]!;
      expect(s.image).toMatch(INFRA.mongo);
      expect(s.command).toEqual(expect.arrayContaining(['--replSet', 'rs0', '--bind_ip_all']));
      expect(s.healthcheck?.test?.length).toBeGreaterThan(0);
      // A member must not make itself a replica set of one (the base file's healthcheck does).
      expect(JSON.stringify(s.healthcheck?.test)).not.toMatch(/rs\.initiate/);
      expect(s.volumes?.map((v) => v.split(':')[1])).toEqual(['/data/db']);
    }
    const names = volumes.flat().map((v) => v.split(':')[0]!);
    expect(new Set(names).size).toBe(3);
    expect(names).not.toContain('mongo-data');
    for (const v of names) expect(haFile.volumes).toHaveProperty([v]);
  });

  it('initiates the replica set once, from a one-shot service, after every member is healthy', () => {
    const init = merged['mongo-init']!;
    expect(init.image).toMatch(INFRA.mongo);
    expect(init.restart).toBe('no');
    expect(dependsOn(init)).toEqual(Object.fromEntries(MONGO_MEMBERS.map((m) => [m, 'service_healthy'])));
    const script = commandText(init);
    const hosts = [...script.matchAll(/host: '([^']+)'/g)].map((m) => m[1]);
    expect(hosts).toEqual(MONGO_MEMBERS.map((m) => `${m}:27017`));
    expect(script).toMatch(/rs\.initiate\(\{ _id: 'rs0'/);
    // Idempotent: initiates only when the set is not yet initiated, and any other failure fails the service.
    expect(script).toMatch(/try \{ rs\.status\(\)/);
    expect(script).toMatch(/NotYetInitialized/);
    expect(script).toMatch(/db\.hello\(\)\.primary/);
  });

  it('runs a Redis Cluster of 6 nodes with AOF, noeviction and stable announced names', () => {
    expect([...redisNodes].sort()).toEqual(['redis', 'redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5']);
    const volumes = new Set<string>();
    for (const n of redisNodes) {
      const s = merged[n]!;
      const args = commandText(s);
      expect(s.image).toMatch(INFRA.redis);
      expect(args).toMatch(/^sh -c exec docker-entrypoint\.sh redis-server /);
      for (const flag of ['--appendonly yes', '--maxmemory-policy noeviction', '--cluster-config-file nodes.conf']) {
        expect(args).toContain(flag);
      }
      expect(args).toMatch(new RegExp(`--cluster-announce-hostname ${n}$`));
      expect(JSON.stringify(s.healthcheck?.test)).toMatch(/redis-cli ping/);
      expect(s.volumes?.map((v) => v.split(':')[1])).toEqual(['/data']);
      volumes.add(s.volumes![0]!.split(':')[0]!);
    }
    expect(volumes.size).toBe(6);
    expect(volumes.has('redis-data')).toBe(false);
  });

  it('creates the cluster (3 masters, a replica each) from a one-shot service, only while the nodes are empty', () => {
    const init = merged['redis-cluster-init']!;
    expect(init.image).toMatch(INFRA.redis);
    expect(init.restart).toBe('no');
    expect(dependsOn(init)).toEqual(Object.fromEntries(redisNodes.map((n) => [n, 'service_healthy'])));
    expect(toMap(init.environment).CLUSTER_NODES?.split(' ').sort()).toEqual(redisNodes.map((n) => `${n}:6379`).sort());
    const script = String((init.command as string[]).at(-1));
    expect(script).toContain('redis-cli --cluster create $$CLUSTER_NODES --cluster-replicas 1 --cluster-yes');
    expect(script).toMatch(/cluster_known_nodes:1/);
    expect(script).toMatch(/cluster_slots_assigned:0/);
    expect(script).toMatch(/cluster_state:ok/);
  });

  describe.each(appNames)('service %s', (name) => {
    const s = merged[name]!;
    const env = toMap(s.environment);

    it('reaches every replica set member and the Redis Cluster', () => {
      const uri = env.MONGODB_URI ?? '';
      expect(uri.replace(/^mongodb:\/\/([^/]+)\/.*$/, '$1').split(',')).toEqual(MONGO_MEMBERS.map((m) => `${m}:27017`));
      expect(new URL(uri.replace(/\/\/[^/]+\//, '//h/')).searchParams.get('replicaSet')).toBe('rs0');
      for (const key of ['REDIS_URL', 'RATE_LIMIT_REDIS_URL']) {
        const m = /^redis\+cluster:\/\/([^/?]+)$/.exec(env[key] ?? '');
        expect({ key, url: env[key], cluster: !!m }).toEqual({ key, url: env[key], cluster: true });
        const seeds = m![1]!.split(',');
        expect(seeds.length).toBeGreaterThanOrEqual(3);
        for (const seed of seeds) expect(redisNodes.map((n) => `${n}:6379`)).toContain(seed);
      }
    });

    it('starts once the replica set and the cluster are made', () => {
      expect(dependsOn(s)).toMatchObject({
        'mongo-init': 'service_completed_successfully',
        'redis-cluster-init': 'service_completed_successfully',
      });
    });

    it('runs two replicas where it can, none of them holding a fixed host port', () => {
      const replicas = s.deploy?.replicas ?? 1;
      // rag keeps its chunk vectors in a LanceDB folder on a local volume, which replicas must not share.
      expect(replicas).toBe(name === 'rag' ? 1 : 2);
      if (name === 'rag') expect(toMap(s.environment).VECTOR_STORE_URI).toMatch(/^\//);
      for (const p of s.ports ?? []) {
        const host = String(p).split(':').at(-2) ?? '';
        const [from, to] = host.split('-').map(Number);
        expect((to ?? from!) - from! + 1).toBeGreaterThanOrEqual(replicas);
      }
      if (name !== 'gateway') expect(s.ports ?? []).toEqual([]);
    });

    it('still provides every variable the service requires, and only variables it reads', async () => {
      expect(await envProblems(name, env)).toEqual({ missing: [], unread: [], weakKeys: [] });
    });
  });

  it('publishes the gateway (one host port per replica) and builds webhook URLs on it', () => {
    expect(merged.gateway!.ports).toEqual(['8080-8081:8080']);
    expect(new URL(toMap(merged.scheduler!.environment).PUBLIC_BASE_URL ?? '').port).toBe('8080');
  });

  it('declares every named volume it mounts', () => {
    const named = Object.values(haFile.services)
      .flatMap((s) => (Array.isArray(s.volumes) ? (s.volumes as string[]) : []))
      .map((v) => v.split(':')[0]!)
      .filter((v) => !v.startsWith('/') && !v.startsWith('.'));
    for (const v of named) expect(haFile.volumes).toHaveProperty([v]);
  });
});
