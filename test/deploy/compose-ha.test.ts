/**
 * Offline checks of docker-compose.ha.yml over docker-compose.yml (test/deploy/compose-services.test.ts checks the
 * latter on its own).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, YAMLMap, type YAMLSeq } from 'yaml';

import { composeApps, dependsOn, envProblems, ROOT, STORE_IMAGES, toMap, type ComposeService } from './deploy-helpers';

const appServices = composeApps();

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

const isTagged = (v: unknown): v is Tagged => typeof v === 'object' && v !== null && 'composeTag' in v && 'value' in v;
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

/** The replica set: three members on volumes of their own, made by a one-shot init service. */
function runsMongoReplicaSet(): void {
  it('runs a 3-member MongoDB replica set rs0, each member health-checked, on volumes of its own', () => {
    const members = Object.keys(merged).filter((n) => /^mongo(:|$)/.test(merged[n]!.image ?? '') || n === 'mongo');
    expect(members.filter((n) => n !== 'mongo-init').sort()).toEqual(MONGO_MEMBERS);
    const volumes = MONGO_MEMBERS.map((n) => merged[n]!.volumes ?? []);
    for (const n of MONGO_MEMBERS) {
      const s = merged[n]!;
      expect(s.image).toMatch(STORE_IMAGES.mongo);
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
    expect(init.image).toMatch(STORE_IMAGES.mongo);
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
}

/** The Redis Cluster: six nodes on volumes of their own, made by a one-shot init service. */
function runsRedisCluster(): void {
  it('runs a Redis Cluster of 6 nodes with AOF, noeviction and stable announced names', () => {
    expect([...redisNodes].sort()).toEqual(['redis', 'redis-1', 'redis-2', 'redis-3', 'redis-4', 'redis-5']);
    const volumes = new Set<string>();
    for (const n of redisNodes) {
      const s = merged[n]!;
      const args = commandText(s);
      expect(s.image).toMatch(STORE_IMAGES.redis);
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
    expect(init.image).toMatch(STORE_IMAGES.redis);
    expect(init.restart).toBe('no');
    expect(dependsOn(init)).toEqual(Object.fromEntries(redisNodes.map((n) => [n, 'service_healthy'])));
    expect(toMap(init.environment).CLUSTER_NODES?.split(' ').sort()).toEqual(redisNodes.map((n) => `${n}:6379`).sort());
    const script = String((init.command as string[]).at(-1));
    expect(script).toContain('redis-cli --cluster create $$CLUSTER_NODES --cluster-replicas 1 --cluster-yes');
    expect(script).toMatch(/cluster_known_nodes:1/);
    expect(script).toMatch(/cluster_slots_assigned:0/);
    expect(script).toMatch(/cluster_state:ok/);
  });
}

/**
 * docker-compose.ha.yml, laid over docker-compose.yml (`docker compose -f docker-compose.yml -f docker-compose.ha.yml`):
 * a 3-member MongoDB replica set and a 6-node Redis Cluster, each made by a one-shot init service, every app service
 * pointed at both and run twice where it can be. The files are merged here as Compose merges them.
 */
describe('docker-compose.ha.yml (HA topology over docker-compose.yml)', () => {
  it('defines in full every service it adds, and overrides every app service of the base', () => {
    expect(Object.keys(haFile.services)).toEqual(expect.arrayContaining(appNames));
    for (const [name, s] of Object.entries(merged)) {
      expect({ name, defined: s.image !== undefined || s.build !== undefined }).toEqual({ name, defined: true });
    }
  });

  runsMongoReplicaSet();

  runsRedisCluster();

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
