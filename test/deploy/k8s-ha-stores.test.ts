/**
 * Offline checks of the ha overlay (rendered with the pinned kustomize, test/deploy/k8s-objects.ts): the stores in the
 * cluster, fenced and pointed at by every service. test/deploy/k8s-overlays.test.ts checks what every overlay deploys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { type IContainer } from 'kubernetes-models/v1/Container';

import { ROOT } from './deploy-helpers';
import {
  containersOf,
  exampleSecrets,
  isSubset,
  NAME_LABEL,
  nameOf,
  nsOf,
  objectsOf,
  OVERLAYS,
  render,
  resolvePort,
  secretValues,
} from './k8s-objects';

const k = objectsOf(render('ha'));
const sets = k.ofKind(StatefulSet);
const jobs = k.ofKind(Job);
const set = (name: string): StatefulSet => {
  const s = sets.find((x) => nameOf(x) === name);
  if (!s) throw new Error(`no StatefulSet ${name}`);
  return s;
};
const job = (name: string): Job => {
  const j = jobs.find((x) => nameOf(x) === name);
  if (!j) throw new Error(`no Job ${name}`);
  return j;
};
const args = (c: IContainer): string => [...(c.command ?? []), ...(c.args ?? [])].join(' ');
/** Stable pod names of a StatefulSet through its headless Service: <set>-<i>.<service>:<port>. */
const podHosts = (s: StatefulSet, port: number): string[] =>
  Array.from({ length: s.spec?.replicas ?? 1 }, (_, i) => `${nameOf(s)}-${i}.${s.spec?.serviceName}:${port}`);
const mongo = set('mongo');
const redis = set('redis-cluster');
const storeUsers = k.deployments.map(nameOf).filter((n) => n !== 'gateway');

/** The two StatefulSets: pods, headless Service, volumes, spread, probes and disruption budget, and how each runs. */
function runsTheStores(): void {
  it.each([
    ['mongo', 3, [27017]],
    ['redis-cluster', 6, [6379, 16379]],
  ] as const)('StatefulSet %s: %i pods, a headless Service, a volume each, spread over nodes', (name, n, ports) => {
    const s = set(name);
    expect(s.spec?.replicas).toBe(n);
    const labels = s.spec?.template.metadata?.labels;
    expect(isSubset(s.spec?.selector.matchLabels, labels)).toBe(true);
    const svc = k.services.find((x) => nameOf(x) === s.spec?.serviceName);
    expect(svc?.spec?.clusterIP).toBe('None');
    expect(svc?.spec?.publishNotReadyAddresses).toBe(true);
    expect(isSubset(svc?.spec?.selector, labels)).toBe(true);
    const c = s.spec!.template.spec!.containers[0]!;
    expect(svc?.spec?.ports?.map((p) => p.port)).toEqual([...ports]);
    for (const p of svc?.spec?.ports ?? []) expect(resolvePort(c, p.targetPort ?? p.port)).toBe(p.port);
    const claims = s.spec?.volumeClaimTemplates?.map((v) => v.metadata?.name) ?? [];
    expect(claims).toHaveLength(1);
    expect(c.volumeMounts?.map((m) => m.name)).toContain(claims[0]);
    const spread = s.spec?.template.spec?.topologySpreadConstraints ?? [];
    expect(spread[0]).toMatchObject({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' });
    for (const t of spread) expect(isSubset(t.labelSelector?.matchLabels, labels)).toBe(true);
    expect(c.readinessProbe).toBeDefined();
    expect(c.livenessProbe).toBeDefined();
    // One pod at a time through drains: the replica set keeps its majority, each master its replica.
    const pdb = k.pdbs.find((p) => isSubset(p.spec?.selector?.matchLabels, labels));
    expect(pdb?.spec?.maxUnavailable).toBe(1);
  });

  it('runs mongod as members of replica set rs0, and Redis in cluster mode with AOF, noeviction and stable names', () => {
    const m = args(mongo.spec!.template.spec!.containers[0]!);
    expect(m).toMatch(/^mongod --replSet rs0 --bind_ip_all --dbpath \/data\/db$/);
    expect(mongo.spec!.template.spec!.containers[0]!.volumeMounts?.find((v) => v.name === 'data')?.mountPath).toBe(
      '/data/db',
    );
    const r = args(redis.spec!.template.spec!.containers[0]!);
    for (const flag of [
      '--cluster-enabled yes',
      '--appendonly yes',
      '--maxmemory-policy noeviction',
      '--cluster-config-file /data/nodes.conf',
      `--cluster-announce-hostname "\${HOSTNAME}.${redis.spec?.serviceName}"`,
      '--cluster-preferred-endpoint-type hostname',
    ]) {
      expect(r).toContain(flag);
    }
  });
}

/** The one-shot Jobs that make the replica set and the cluster. */
function initiatesTheStores(): void {
  it('initiates the replica set from a Job, once, with every member', () => {
    const j = job('mongo-init');
    expect(j.spec?.backoffLimit).toBeGreaterThan(0);
    const script = args(j.spec!.template.spec!.containers[0]!);
    expect([...script.matchAll(/host: '([^']+)'/g)].map((x) => x[1])).toEqual(podHosts(mongo, 27017));
    expect(script).toMatch(/rs\.initiate\(\{ _id: 'rs0'/);
    expect(script).toMatch(/try \{ rs\.status\(\)/);
    expect(script).toMatch(/NotYetInitialized/);
    expect(script).toMatch(/db\.hello\(\)\.primary/);
  });

  it('creates the Redis Cluster from a Job (3 masters, a replica each), only while every node is empty', () => {
    const c = job('redis-cluster-init').spec!.template.spec!.containers[0]!;
    const nodes = c.env?.find((e) => e.name === 'CLUSTER_NODES')?.value?.split(/\s+/);
    expect(nodes).toEqual(podHosts(redis, 6379));
    const script = args(c);
    expect(script).toContain('redis-cli --cluster create $CLUSTER_NODES --cluster-replicas 1 --cluster-yes');
    expect(script).toMatch(/cluster_known_nodes:1/);
    expect(script).toMatch(/cluster_slots_assigned:0/);
    expect(script).toMatch(/cluster_state:ok/);
  });
}

/**
 * The ha overlay runs the stores in the namespace: MongoDB as a 3-member replica set and a 6-node Redis Cluster, each a
 * StatefulSet behind a headless Service, made by a one-shot Job, kept by a PodDisruptionBudget and fenced by network
 * policies; every service is pointed at both, and the trigger path's autoscaling follows docs/capacity.md.
 */
describe('overlay ha: the stores in the cluster', () => {
  it('is an overlay of its own', () => {
    expect(OVERLAYS).toContain('ha');
    expect(sets.map(nameOf).sort()).toEqual(['mongo', 'redis-cluster']);
    expect(jobs.map(nameOf).sort()).toEqual(['mongo-init', 'redis-cluster-init']);
  });

  runsTheStores();

  it.each([
    ['StatefulSet mongo', () => mongo.spec!.template.spec!],
    ['StatefulSet redis-cluster', () => redis.spec!.template.spec!],
    ['Job mongo-init', () => job('mongo-init').spec!.template.spec!],
    ['Job redis-cluster-init', () => job('redis-cluster-init').spec!.template.spec!],
  ] as const)('%s meets the namespace\'s "restricted" Pod Security Standard and has resources', (_n, podSpec) => {
    const spec = podSpec();
    expect(spec.automountServiceAccountToken).toBe(false);
    for (const c of spec.containers) {
      const sec = c.securityContext;
      expect(sec?.runAsNonRoot ?? spec.securityContext?.runAsNonRoot).toBe(true);
      expect(sec?.runAsUser ?? spec.securityContext?.runAsUser).toBeGreaterThan(0);
      expect((sec?.seccompProfile ?? spec.securityContext?.seccompProfile)?.type).toBe('RuntimeDefault');
      expect(sec?.readOnlyRootFilesystem).toBe(true);
      expect(sec?.allowPrivilegeEscalation).toBe(false);
      expect(sec?.capabilities?.drop).toEqual(['ALL']);
      for (const kind of ['requests', 'limits'] as const) {
        expect(c.resources?.[kind]?.cpu).toBeDefined();
        expect(c.resources?.[kind]?.memory).toBeDefined();
      }
    }
  });

  initiatesTheStores();

  it.each(storeUsers)('points %s at the replica set and the cluster, overriding its Secret', (name) => {
    const d = k.deployments.find((x) => nameOf(x) === name)!;
    const c = containersOf(d)[0]!;
    const env = k.containerEnv(c, nsOf(d));
    const mongoUri = env.MONGODB_URI ?? '';
    expect(mongoUri.replace(/^mongodb:\/\/([^/]+)\/.*$/, '$1').split(',')).toEqual(podHosts(mongo, 27017));
    expect(new URLSearchParams(mongoUri.split('?')[1]).get('replicaSet')).toBe('rs0');
    // Every Redis URL its Secret example names now seeds from the cluster's pods.
    const secret = exampleSecrets.find((s) => nameOf(s) === `${name}-secrets`)!;
    const redisKeys = Object.keys(secretValues(secret)).filter((key) => /REDIS_URL$/.test(key));
    expect(redisKeys.length).toBeGreaterThan(0);
    for (const key of redisKeys) {
      const m = /^redis\+cluster:\/\/([^/?]+)$/.exec(env[key] ?? '');
      expect({ key, cluster: !!m }).toEqual({ key, cluster: true });
      const seeds = m![1]!.split(',');
      expect(seeds.length).toBeGreaterThanOrEqual(3);
      for (const seed of seeds) expect(podHosts(redis, 6379)).toContain(seed);
    }
  });

  it('lets the services and the init Job reach each store, and the members reach each other', () => {
    const policiesOf = (name: string) =>
      k.policies.filter((p) => p.spec?.podSelector?.matchLabels?.[NAME_LABEL] === name);
    const admitted = (name: string, port: number): string[] =>
      policiesOf(name)
        .flatMap((p) => p.spec?.ingress ?? [])
        .filter((r) => (r.ports ?? []).some((p) => Number(p.port) === port))
        .flatMap((r) => r.from ?? [])
        .flatMap((f) =>
          f.podSelector?.matchLabels?.[NAME_LABEL] !== undefined
            ? [f.podSelector.matchLabels[NAME_LABEL]]
            : (f.podSelector?.matchExpressions ?? []).flatMap((e) => e.values ?? []),
        );
    const egressTo = (name: string, port: number): string[] =>
      policiesOf(name)
        .flatMap((p) => p.spec?.egress ?? [])
        .filter((r) => (r.ports ?? []).some((p) => Number(p.port) === port))
        .flatMap((r) => (r.to ?? []).map((t) => t.podSelector?.matchLabels?.[NAME_LABEL] ?? '(not a pod selector)'));
    expect(admitted('mongo', 27017).sort()).toEqual([...storeUsers, 'mongo', 'mongo-init'].sort());
    expect(admitted('redis-cluster', 6379).sort()).toEqual(
      [...storeUsers, 'redis-cluster', 'redis-cluster-init'].sort(),
    );
    expect(admitted('redis-cluster', 16379)).toEqual(['redis-cluster']);
    expect(egressTo('mongo', 27017)).toEqual(['mongo']);
    expect(egressTo('mongo-init', 27017)).toEqual(['mongo']);
    expect(egressTo('redis-cluster', 16379)).toEqual(['redis-cluster']);
    expect(egressTo('redis-cluster-init', 6379)).toEqual(['redis-cluster']);
    expect(admitted('mongo', 6379)).toEqual([]);
  });

  it("autoscales the trigger path as docs/capacity.md's HPA table says, on a whole core requested per pod", () => {
    const page = readFileSync(join(ROOT, 'docs/capacity.md'), 'utf8');
    const rows = [...page.matchAll(/^\| `(\w+)` \| (\d+) \| (\d+) \| (\d+) % \|/gm)].map((m) => ({
      name: m[1]!,
      min: Number(m[2]),
      max: Number(m[3]),
      cpu: Number(m[4]),
    }));
    expect(rows.map((r) => r.name).sort()).toEqual(['agent', 'scheduler', 'worker']);
    for (const row of rows) {
      const hpa = k.hpas.find((h) => nameOf(h) === row.name)!;
      const cpu = hpa.spec?.metrics?.find((m) => m.resource?.name === 'cpu')?.resource?.target.averageUtilization;
      expect({ name: row.name, min: hpa.spec?.minReplicas, max: hpa.spec?.maxReplicas, cpu }).toEqual(row);
      const d = k.deployments.find((x) => nameOf(x) === row.name)!;
      expect(String(containersOf(d)[0]!.resources?.requests?.cpu)).toBe('1');
    }
    for (const h of k.hpas) expect(h.spec?.minReplicas).toBeGreaterThanOrEqual(2);
  });
});
