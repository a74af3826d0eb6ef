/**
 * Offline checks of the base and of what each overlay under k8s/overlays deploys (rendered with the pinned kustomize,
 * test/deploy/k8s-objects.ts): every object is valid Kubernetes (kubernetes-models' bundled OpenAPI schemas;
 * scripts/validate-k8s.sh adds kubeconform against the vendored schemas), and the objects fit together: probes,
 * resources, security, graceful termination, spread, the env each container gets from its ConfigMap and its Secret
 * example, Services, autoscaling and disruption budgets, network policies and the Ingress's path prefixes.
 * test/deploy/k8s-ha-stores.test.ts checks the stores the ha overlay runs in the cluster.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { type NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { parse } from 'yaml';

import { ROUTE_TABLE } from '../../services/gateway/src/routes';
import { CONTRACT_PORTS, envProblems, K8S, ROOT } from './deploy-helpers';
import {
  containersOf,
  exampleDocs,
  exampleSecrets,
  files,
  isSubset,
  label,
  NAME_LABEL,
  nameOf,
  nsOf,
  objectsOf,
  OVERLAYS,
  preStopSeconds,
  render,
  resolvePort,
  toModel,
} from './k8s-objects';

/** Services that call public addresses: LLM providers and tools (agent), HTTP schedules (worker), crawls (graph). */
const INTERNET_CALLERS = ['agent', 'graph', 'worker'];
/** The image carrying Chromium, and the one carrying poppler and tesseract, write temp files there. */
const TEMP_WRITERS = ['graph', 'ocr'];

describe('Secret examples', () => {
  it('exist for every Secret a Deployment reads, as stringData, and are never rendered by an overlay', () => {
    expect(exampleSecrets.length).toBe(exampleDocs.length);
    for (const s of exampleSecrets) expect(s.stringData).toEqual(expect.any(Object));
    for (const overlay of OVERLAYS) {
      expect(
        render(overlay)
          .filter((d) => d.data.kind === 'Secret')
          .map(label),
      ).toEqual([]);
    }
  });

  it.each(exampleDocs.map((d) => [label(d), d] as const))('%s is valid against the Kubernetes schema', (_n, d) => {
    expect(() => toModel(d).validate()).not.toThrow();
  });
});

describe('k8s/base/kustomization.yaml', () => {
  /** Files a kustomization reaches, following directory resources into their own kustomization.yaml. */
  function reachable(file: string, seen = new Set<string>()): string[] {
    const k = parse(readFileSync(file, 'utf8')) as { resources?: string[] };
    const out: string[] = [];
    for (const entry of k.resources ?? []) {
      const path = resolve(dirname(file), entry);
      if (!existsSync(path)) throw new Error(`${relative(ROOT, file)} lists ${entry}, which does not exist`);
      if (statSync(path).isDirectory()) {
        const nested = join(path, 'kustomization.yaml');
        if (!existsSync(nested))
          throw new Error(`${relative(ROOT, file)} lists ${entry}/ without a kustomization.yaml`);
        if (!seen.has(nested)) out.push(...reachable(nested, seen.add(nested)));
      } else {
        out.push(relative(ROOT, path));
      }
    }
    return out;
  }

  it('lists every manifest under base/ except the Secret examples, each once', () => {
    const listed = reachable(join(K8S, 'base', 'kustomization.yaml'));
    const manifests = files(join(K8S, 'base'), /\.ya?ml$/)
      .map((f) => relative(ROOT, f))
      .filter((f) => !/(\.example|kustomization)\.ya?ml$/.test(f));
    expect(listed.filter((f) => /\.example\.ya?ml$/.test(f))).toEqual([]);
    expect(manifests.filter((f) => !listed.includes(f))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('has a dev and a prod overlay', () => {
    expect(OVERLAYS).toEqual(expect.arrayContaining(['dev', 'prod']));
  });
});

type Objects = ReturnType<typeof objectsOf>;

/** One Deployment of an overlay: its pods, its container, the env it gets and its shutdown. */
function deploymentChecks(k: Objects, name: string, d: Deployment): void {
  const pod = d.spec?.template;
  const podSpec = pod?.spec;
  const containers = containersOf(d);

  it('selects its own pods, runs its own image and spreads them over nodes and zones', () => {
    expect(isSubset(d.spec?.selector.matchLabels, pod?.metadata?.labels)).toBe(true);
    expect(pod?.metadata?.labels?.[NAME_LABEL]).toBe(name);
    expect(containers).toHaveLength(1);
    expect(containers[0]!.image).toMatch(new RegExp(`(^|/)agent-platform/${name}-service(:|@)`));
    const spread = podSpec?.topologySpreadConstraints ?? [];
    expect(spread.map((t) => t.topologyKey)).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const t of spread) expect(isSubset(t.labelSelector?.matchLabels, pod?.metadata?.labels)).toBe(true);
    expect(pod?.metadata?.annotations?.['prometheus.io/path']).toBe('/metrics');
    expect(Number(pod?.metadata?.annotations?.['prometheus.io/port'])).toBe(CONTRACT_PORTS[name]);
  });

  it.each(containers.map((c) => [c.name, c] as const))(
    'container %s has probes, resources and a locked-down security context',
    (_n, c) => {
      expect(c.startupProbe?.httpGet?.path).toBe('/healthz');
      expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
      expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
      for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) {
        expect(resolvePort(c, probe?.httpGet?.port)).toBe(CONTRACT_PORTS[name]);
      }
      for (const kind of ['requests', 'limits'] as const) {
        expect(c.resources?.[kind]?.cpu).toBeDefined();
        expect(c.resources?.[kind]?.memory).toBeDefined();
      }
      const podSec = podSpec?.securityContext;
      const sec = c.securityContext;
      expect(sec?.runAsNonRoot ?? podSec?.runAsNonRoot).toBe(true);
      // A numeric user lets the kubelet verify runAsNonRoot for an image whose USER is a name ("node").
      expect(sec?.runAsUser ?? podSec?.runAsUser).toBeGreaterThan(0);
      expect((sec?.seccompProfile ?? podSec?.seccompProfile)?.type).toBe('RuntimeDefault');
      expect(sec?.readOnlyRootFilesystem).toBe(true);
      expect(sec?.allowPrivilegeEscalation).toBe(false);
      expect(sec?.privileged ?? false).toBe(false);
      expect(sec?.capabilities?.drop).toEqual(['ALL']);
      expect(sec?.capabilities?.add ?? []).toEqual([]);
      expect(podSpec?.automountServiceAccountToken).toBe(false);
    },
  );

  it('mounts a size-limited emptyDir on /tmp (the root filesystem is read-only)', () => {
    const mount = containers[0]!.volumeMounts?.find((m) => m.mountPath === '/tmp');
    const volume = podSpec?.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.emptyDir?.sizeLimit).toBeDefined();
    if (TEMP_WRITERS.includes(name)) expect(String(volume?.emptyDir?.sizeLimit)).toMatch(/^[0-9]+(Mi|Gi)$/);
  });

  it('gets env that exists and fits its config schema, on its contract port', async () => {
    const c = containers[0]!;
    const env = k.containerEnv(c, nsOf(d));
    expect(c.envFrom?.some((f) => f.configMapRef)).toBe(true);
    expect(c.envFrom?.some((f) => f.secretRef)).toBe(true);
    for (const from of c.envFrom ?? [])
      expect(from.configMapRef?.optional ?? from.secretRef?.optional ?? false).toBe(false);
    expect(Number(env.PORT)).toBe(CONTRACT_PORTS[name]);
    expect(c.ports?.map((p) => p.containerPort)).toEqual([CONTRACT_PORTS[name]]);
    expect(await envProblems(name, env)).toEqual({ missing: [], unread: [], weakKeys: [] });
  });

  it('lets the shutdown finish before SIGKILL: preStop + grace for units + grace for requests + closing', () => {
    const c = containers[0]!;
    const graceMs = Number(k.containerEnv(c, nsOf(d)).SHUTDOWN_GRACE_MS ?? 10000);
    // libs/service runService: units stop within graceMs, then the server drains within graceMs, then the stores close.
    const neededMs = preStopSeconds(c) * 1000 + 2 * graceMs + 2000;
    expect((podSpec?.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(neededMs);
  });
}

/** An overlay's autoscaling and disruption budgets. */
function scalingChecks(k: Objects, overlay: string): void {
  it('autoscales every Deployment, keeps some pods through drains without blocking them', () => {
    for (const d of k.deployments) {
      const hpa = k.hpas.find(
        (h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === nameOf(d),
      );
      const pdb = k.pdbs.find((p) => isSubset(p.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels));
      const min = hpa?.spec?.minReplicas ?? 1;
      expect({ name: nameOf(d), hpa: !!hpa, pdb: !!pdb }).toEqual({ name: nameOf(d), hpa: true, pdb: true });
      expect(hpa!.spec!.maxReplicas).toBeGreaterThan(min);
      expect(d.spec?.replicas).toBe(min);
      // A drain must be able to evict a pod when the service runs at its minimum.
      if (pdb!.spec?.minAvailable !== undefined) expect(min).toBeGreaterThan(Number(pdb!.spec.minAvailable));
      else expect(Number(pdb!.spec?.maxUnavailable)).toBeGreaterThanOrEqual(1);
      if (overlay === 'prod') {
        expect(min).toBeGreaterThanOrEqual(3);
        expect(Number(pdb!.spec?.minAvailable)).toBeGreaterThanOrEqual(2);
        expect(d.spec?.template.spec?.topologySpreadConstraints?.[0]?.whenUnsatisfiable).toBe('DoNotSchedule');
      }
      if (overlay === 'dev') expect(min).toBe(1);
    }
    const services = k.hpas.filter((h) => nameOf(h) !== 'worker');
    for (const h of services) expect(h.spec?.metrics?.map((m) => m.resource?.name)).toEqual(['cpu']);
  });

  it('scales the worker on its queue depth (the waiting agent runs the worker exports)', () => {
    const worker = k.hpas.find((h) => nameOf(h) === 'worker');
    const external = worker?.spec?.metrics?.find((m) => m.type === 'External');
    expect(external?.external?.metric.name).toBe('queue_jobs');
    expect(external?.external?.metric.selector?.matchLabels).toEqual({ queue: 'agent-runs', state: 'waiting' });
    expect(external?.external?.target.type).toBe('AverageValue');
  });
}

/** An overlay's network policies, as they apply to each service's pods. */
function networkPolicyChecks(k: Objects): void {
  const selects = (p: NetworkPolicy, name: string): boolean => {
    const sel = p.spec?.podSelector;
    if (!sel?.matchLabels && !sel?.matchExpressions) return true; // {}: every pod
    if (sel.matchLabels && sel.matchLabels[NAME_LABEL] !== undefined) return sel.matchLabels[NAME_LABEL] === name;
    return (sel.matchExpressions ?? []).every(
      (e) => e.key === NAME_LABEL && e.operator === 'In' && (e.values ?? []).includes(name),
    );
  };
  const egressOf = (name: string) =>
    k.policies
      .filter((p) => selects(p, name) && p.spec?.policyTypes?.includes('Egress'))
      .flatMap((p) => p.spec?.egress ?? []);
  const ingressOf = (name: string) =>
    k.policies
      .filter((p) => selects(p, name) && p.spec?.policyTypes?.includes('Ingress'))
      .flatMap((p) => p.spec?.ingress ?? []);
  const ports = (rules: { ports?: { port?: number | string }[] }[]): number[] =>
    rules.flatMap((r) => (r.ports ?? []).map((p) => Number(p.port)));
  const fromNames = (rules: ReturnType<typeof ingressOf>): string[] =>
    rules.flatMap((r) =>
      (r.from ?? []).map(
        (f) =>
          f.podSelector?.matchLabels?.[NAME_LABEL] ??
          `namespace:${f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']}`,
      ),
    );

  it('deny everything by default, both ways', () => {
    const deny = k.policies.find(
      (p) => Object.keys(p.spec?.podSelector ?? {}).length === 0 && !p.spec?.ingress && !p.spec?.egress,
    );
    expect(deny?.spec?.policyTypes).toEqual(expect.arrayContaining(['Ingress', 'Egress']));
  });

  it('let each service be reached on its port only by the ingress controller, the gateway and named callers', () => {
    for (const d of k.deployments.filter((x) => nameOf(x) !== 'worker')) {
      const name = nameOf(d);
      const rules = ingressOf(name).filter(
        (r) =>
          !(r.from ?? []).some(
            (f) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring',
          ),
      );
      expect(rules.length).toBeGreaterThan(0);
      expect([...new Set(ports(rules))]).toEqual([CONTRACT_PORTS[name]]);
      const from = fromNames(rules);
      expect(from).toContain('namespace:ingress-nginx');
      if (name !== 'gateway') expect(from).toContain('gateway');
      for (const f of from)
        expect(f === 'namespace:ingress-nginx' || Object.keys(CONTRACT_PORTS).includes(f)).toBe(true);
    }
    expect(fromNames(ingressOf('rag'))).toContain('graph');
    expect(
      ingressOf('worker')
        .flatMap((r) => r.from ?? [])
        .map((f) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']),
    ).toEqual(['monitoring']);
  });

  it('let only services reach MongoDB and Redis, and only the callers of public addresses reach the internet', () => {
    for (const d of k.deployments) {
      const name = nameOf(d);
      const out = egressOf(name);
      const storePorts = ports(out.filter((r) => !r.to)).filter((p) => p === 27017 || p === 6379);
      expect({ name, stores: storePorts.sort((a, b) => a - b) }).toEqual({
        name,
        stores: name === 'gateway' ? [] : [6379, 27017],
      });
      const internet = out.filter((r) => (r.to ?? []).some((t) => t.ipBlock?.cidr === '0.0.0.0/0'));
      expect({ name, internet: internet.length > 0 }).toEqual({ name, internet: INTERNET_CALLERS.includes(name) });
      for (const r of internet) {
        expect(r.to?.[0]?.ipBlock?.except).toEqual(
          expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']),
        );
        expect(ports([r]).sort((a, b) => a - b)).toEqual([80, 443]);
      }
      // Nothing may leave without a port, which would open every port.
      for (const r of out) expect(r.ports?.length).toBeGreaterThan(0);
    }
    const gatewayTargets = egressOf('gateway')
      .flatMap((r) => r.to ?? [])
      .map((t) => t.podSelector?.matchLabels?.[NAME_LABEL]);
    expect(gatewayTargets.sort()).toEqual(ROUTE_TABLE.map((r) => r.service).sort());
  });
}

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  const docs = render(overlay);
  const k = objectsOf(docs);
  const declared = parse(readFileSync(join(K8S, 'overlays', overlay, 'kustomization.yaml'), 'utf8')) as {
    namespace?: string;
  };

  it('renders only kinds with a model, each valid against the Kubernetes schema', () => {
    expect(k.deployments.length).toBeGreaterThan(0);
    for (const o of k.objects) {
      expect(() => o.validate()).not.toThrow();
      expect(nameOf(o)).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    }
    expect(() => toModel({ source: 'x', data: { apiVersion: 'v1', kind: 'Bogus' } })).toThrow(/unknown/);
  });

  it('deploys one Deployment per contract process, and puts everything in its Namespace', () => {
    expect(k.deployments.map(nameOf).sort()).toEqual(Object.keys(CONTRACT_PORTS).sort());
    expect(k.ofKind(Namespace).map(nameOf)).toEqual([declared.namespace]);
    expect(k.ofKind(Namespace)[0]!.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const o of k.objects.filter((x) => !(x instanceof Namespace))) expect(nsOf(o)).toBe(declared.namespace);
  });

  describe.each(k.deployments.map((d) => [nameOf(d), d] as const))('Deployment %s', (name, d) =>
    deploymentChecks(k, name, d),
  );

  it('exposes every Deployment by one ClusterIP Service on its contract port', () => {
    for (const d of k.deployments) {
      const exposing = k.services.filter((s) => isSubset(s.spec?.selector, d.spec?.template.metadata?.labels));
      expect(exposing.map(nameOf)).toEqual([nameOf(d)]);
      const s = exposing[0]!;
      expect(s.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
      for (const p of s.spec?.ports ?? []) {
        expect(p.port).toBe(CONTRACT_PORTS[nameOf(d)]);
        expect(resolvePort(containersOf(d)[0]!, p.targetPort ?? p.port)).toBe(CONTRACT_PORTS[nameOf(d)]);
      }
    }
  });

  scalingChecks(k, overlay);

  describe('network policies', () => networkPolicyChecks(k));

  it("routes the Ingress by the gateway's path prefixes straight to each Service, everything else to the gateway", () => {
    expect(k.ingresses).toHaveLength(1);
    const paths = k.ingresses[0]!.spec!.rules!.flatMap((r) => r.http?.paths ?? []);
    const expected: { prefix: string; service: string }[] = ROUTE_TABLE.flatMap((r) =>
      r.prefixes.map((prefix) => ({ prefix, service: r.service })),
    );
    expected.push({ prefix: '/', service: 'gateway' });
    expect(
      paths
        .map((p) => ({ prefix: p.path, service: p.backend.service?.name }))
        .sort((a, b) => a.prefix!.localeCompare(b.prefix!)),
    ).toEqual(expected.sort((a, b) => a.prefix.localeCompare(b.prefix)));
    for (const p of paths) {
      expect(p.pathType).toBe('Prefix');
      expect(p.backend.service?.port?.number).toBe(CONTRACT_PORTS[p.backend.service?.name ?? '']);
    }
  });

  it("ships the Grafana dashboard as a ConfigMap for Grafana's sidecar, holding the dashboard JSON only", () => {
    const dashboards = k.ofKind(ConfigMap).filter((c) => c.metadata?.labels?.grafana_dashboard === '1');
    expect(dashboards.map(nameOf)).toEqual(['agent-platform-grafana-dashboard']);
    expect(Object.keys(dashboards[0]!.data ?? {})).toEqual(['grafana-dashboard.json']);
    const json = readFileSync(join(K8S, 'base/observability/grafana-dashboard.json'), 'utf8');
    expect(dashboards[0]!.data!['grafana-dashboard.json']).toBe(json);
  });

  it("gives the scheduler the worker's OUTBOUND_ALLOW_HOSTS itself, not a copy that could drift", () => {
    const [scheduler, worker] = ['scheduler', 'worker'].map((n) => k.deployments.find((d) => nameOf(d) === n)!);
    const ref = containersOf(scheduler!)[0]!.env?.find((e) => e.name === 'OUTBOUND_ALLOW_HOSTS')?.valueFrom;
    const workerMaps = (containersOf(worker!)[0]!.envFrom ?? []).map((f) => f.configMapRef?.name);
    expect(ref?.configMapKeyRef?.key).toBe('OUTBOUND_ALLOW_HOSTS');
    expect(workerMaps).toContain(ref?.configMapKeyRef?.name);
  });

  it('gives the gateway the URL of every service it routes to', () => {
    const gateway = k.deployments.find((d) => nameOf(d) === 'gateway')!;
    const env = k.containerEnv(containersOf(gateway)[0]!, nsOf(gateway));
    for (const { service } of ROUTE_TABLE) {
      expect({ service, url: env[`${service.toUpperCase()}_URL`] }).toEqual({
        service,
        url: `http://${service}:${CONTRACT_PORTS[service]}`,
      });
    }
  });
});
