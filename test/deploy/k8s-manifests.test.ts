/**
 * Offline checks of what each overlay under k8s/overlays deploys (rendered with the pinned kustomize): every object is
 * valid Kubernetes (kubernetes-models' bundled OpenAPI schemas; scripts/validate-k8s.sh adds kubeconform against the
 * vendored schemas), and the objects fit together: probes, resources, security, graceful termination, spread, the env
 * each container gets from its ConfigMap and its Secret example, Services, autoscaling and disruption budgets, network
 * policies and the Ingress's path prefixes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { parse, parseAllDocuments } from 'yaml';

import { ROUTE_TABLE } from '../../services/gateway/src/routes';
import { CONTRACT_PORTS, envProblems, K8S, k8sTools, ROOT } from './deploy-helpers';

const NAME_LABEL = 'app.kubernetes.io/name';
/** Services that call public addresses: LLM providers and tools (agent), HTTP schedules (worker), crawls (graph). */
const INTERNET_CALLERS = ['agent', 'graph', 'worker'];
/** The image carrying Chromium, and the one carrying poppler and tesseract, write temp files there. */
const TEMP_WRITERS = ['graph', 'ocr'];

type K8sObject =
  | Namespace
  | ConfigMap
  | Secret
  | Service
  | Deployment
  | StatefulSet
  | Job
  | PodDisruptionBudget
  | HorizontalPodAutoscaler
  | NetworkPolicy
  | Ingress;

const MODELS: Record<string, (data: object) => K8sObject> = {
  'v1/Namespace': (d) => new Namespace(d as never),
  'v1/ConfigMap': (d) => new ConfigMap(d as never),
  'v1/Secret': (d) => new Secret(d as never),
  'v1/Service': (d) => new Service(d as never),
  'apps/v1/Deployment': (d) => new Deployment(d as never),
  'apps/v1/StatefulSet': (d) => new StatefulSet(d as never),
  'batch/v1/Job': (d) => new Job(d as never),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d as never),
  'autoscaling/v2/HorizontalPodAutoscaler': (d) => new HorizontalPodAutoscaler(d as never),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d as never),
  'networking.k8s.io/v1/Ingress': (d) => new Ingress(d as never),
};

interface Doc {
  source: string;
  data: Record<string, unknown>;
}

const label = (d: Doc): string =>
  `${d.source} ${String(d.data.kind)}/${String((d.data.metadata as { name?: string } | undefined)?.name)}`;

/** Builds the typed model for a document; unknown apiVersion/kind throws. */
function toModel(d: Doc): K8sObject {
  const key = `${String(d.data.apiVersion)}/${String(d.data.kind)}`;
  const make = MODELS[key];
  if (!make) throw new Error(`${label(d)}: unknown apiVersion/kind ${key}; add its kubernetes-models class to MODELS`);
  return make(d.data);
}

function parseDocs(text: string, source: string): Doc[] {
  return parseAllDocuments(text).flatMap((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${source} #${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const data: unknown = doc.toJS();
    if (data === null || data === undefined) return [];
    if (typeof data !== 'object' || Array.isArray(data)) throw new Error(`${source} #${index}: not a mapping`);
    return [{ source, data: data as Record<string, unknown> }];
  });
}

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return files(path, pattern);
      return pattern.test(name) ? [path] : [];
    });
}

const { kustomize } = k8sTools();
const OVERLAYS = readdirSync(join(K8S, 'overlays'))
  .filter((n) => statSync(join(K8S, 'overlays', n)).isDirectory())
  .sort();

/** What `kubectl apply -k k8s/overlays/<name>` would send. */
function render(overlay: string): Doc[] {
  const text = execFileSync(kustomize, ['build', join(K8S, 'overlays', overlay)], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return parseDocs(text, `overlays/${overlay}`);
}

/** The Secret examples (never deployed): what each Deployment's secretRef stands for. */
const exampleDocs = files(join(K8S, 'base'), /\.example\.ya?ml$/).flatMap((f) =>
  parseDocs(readFileSync(f, 'utf8'), relative(ROOT, f)),
);
const exampleSecrets = exampleDocs.map((d) => toModel(d)).filter((o): o is Secret => o instanceof Secret);

const nameOf = (o: K8sObject): string => o.metadata?.name ?? '';
const nsOf = (o: K8sObject): string | undefined => o.metadata?.namespace;
const isSubset = (sub: Record<string, string> | undefined, sup: Record<string, string> | undefined): boolean =>
  !!sub && Object.keys(sub).length > 0 && Object.entries(sub).every(([k, v]) => sup?.[k] === v);
const containersOf = (d: Deployment): IContainer[] => d.spec?.template.spec?.containers ?? [];

/** Resolves a probe or Service port (number or port name) to a containerPort the container declares. */
function resolvePort(c: IContainer, port: number | string | undefined): number | undefined {
  const ports = c.ports ?? [];
  if (typeof port === 'number') return ports.some((p) => p.containerPort === port) ? port : undefined;
  return ports.find((p) => p.name !== undefined && p.name === port)?.containerPort;
}

function secretValues(s: Secret): Record<string, string> {
  const decoded = Object.fromEntries(
    Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
  return { ...decoded, ...s.stringData };
}

function preStopSeconds(c: IContainer): number {
  const preStop = c.lifecycle?.preStop as { exec?: { command?: string[] }; sleep?: { seconds?: number } } | undefined;
  const [cmd, arg] = preStop?.exec?.command ?? [];
  if (cmd === 'sleep' && arg !== undefined) return Number(arg);
  return preStop?.sleep?.seconds ?? 0;
}

/** An overlay's rendered objects, by kind. */
function objectsOf(docs: Doc[]) {
  const objects = docs.map((d) => toModel(d));
  const ofKind = <T extends K8sObject>(ctor: abstract new (...args: never[]) => T): T[] =>
    objects.filter((o): o is T => o instanceof ctor);
  const configMaps = ofKind(ConfigMap);

  /** The environment a container gets; throws when a referenced ConfigMap, Secret example or key is missing. */
  function containerEnv(c: IContainer, ns: string | undefined): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = {};
    for (const from of c.envFrom ?? []) {
      const prefix = from.prefix ?? '';
      if (from.configMapRef) {
        const cm = configMaps.find((o) => nameOf(o) === from.configMapRef?.name && nsOf(o) === ns);
        if (!cm) throw new Error(`container ${c.name}: ConfigMap ${from.configMapRef.name} is not deployed`);
        for (const [k, v] of Object.entries(cm.data ?? {})) env[prefix + k] = v;
      }
      if (from.secretRef) {
        const s = exampleSecrets.find((o) => nameOf(o) === from.secretRef?.name);
        if (!s) throw new Error(`container ${c.name}: Secret ${from.secretRef.name} has no secret.example.yaml`);
        for (const [k, v] of Object.entries(secretValues(s))) env[prefix + k] = v;
      }
    }
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.configMapKeyRef;
      if (e.valueFrom && !ref) throw new Error(`env ${e.name}: only configMapKeyRef is checked here; use envFrom`);
      if (!ref) {
        env[e.name] = e.value;
        continue;
      }
      // Another ConfigMap's key (one value read by two services): that map is deployed and holds the key.
      const cm = configMaps.find((o) => nameOf(o) === ref.name && nsOf(o) === ns);
      const data = cm?.data ?? {};
      if (!cm || !(ref.key in data)) throw new Error(`env ${e.name}: ConfigMap ${ref.name} has no key ${ref.key}`);
      env[e.name] = data[ref.key];
    }
    return env;
  }

  return {
    objects,
    ofKind,
    deployments: ofKind(Deployment),
    services: ofKind(Service),
    hpas: ofKind(HorizontalPodAutoscaler),
    pdbs: ofKind(PodDisruptionBudget),
    policies: ofKind(NetworkPolicy),
    ingresses: ofKind(Ingress),
    containerEnv,
  };
}

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

  describe.each(k.deployments.map((d) => [nameOf(d), d] as const))('Deployment %s', (name, d) => {
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
  });

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

  describe('network policies', () => {
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
  });

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

/**
 * The ha overlay runs the stores in the namespace: MongoDB as a 3-member replica set and a 6-node Redis Cluster, each a
 * StatefulSet behind a headless Service, made by a one-shot Job, kept by a PodDisruptionBudget and fenced by network
 * policies; every service is pointed at both, and the trigger path's autoscaling follows docs/capacity.md.
 */
describe('overlay ha: the stores in the cluster', () => {
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

  it('is an overlay of its own', () => {
    expect(OVERLAYS).toContain('ha');
    expect(sets.map(nameOf).sort()).toEqual(['mongo', 'redis-cluster']);
    expect(jobs.map(nameOf).sort()).toEqual(['mongo-init', 'redis-cluster-init']);
  });

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
