/**
 * Offline checks of everything under k8s/: each YAML document must be a valid Kubernetes object (kubernetes-models'
 * bundled OpenAPI schemas), and the objects must fit together: probes, resources, security, Service selectors and
 * ports, the env each container gets from its ConfigMaps and Secrets, and the kustomizations.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { type IContainer } from 'kubernetes-models/v1/Container';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { describeConfig } from '@platform/config';

const ROOT = resolve(__dirname, '../..');
const K8S = join(ROOT, 'k8s');

/** Contract §1 ports. */
const CONTRACT_PORTS: Record<string, number> = {
  scheduler: 3001, agent: 3002, rag: 3003, rai: 3004, voice: 3005, graph: 3006, ocr: 3007, worker: 3008, gateway: 8080,
};
/** Read by Node itself or by every service once it uses Redis, so allowed beside a service's own config schema. */
const RUNTIME_VARS = ['NODE_OPTIONS', 'REDIS_URL'];
const NAME_LABEL = 'app.kubernetes.io/name';

type K8sObject = Namespace | ConfigMap | Secret | Service | Deployment | PodDisruptionBudget | HorizontalPodAutoscaler | NetworkPolicy | Ingress;

const MODELS: Record<string, (data: object) => K8sObject> = {
  'v1/Namespace': (d) => new Namespace(d as never),
  'v1/ConfigMap': (d) => new ConfigMap(d as never),
  'v1/Secret': (d) => new Secret(d as never),
  'v1/Service': (d) => new Service(d as never),
  'apps/v1/Deployment': (d) => new Deployment(d as never),
  'policy/v1/PodDisruptionBudget': (d) => new PodDisruptionBudget(d as never),
  'autoscaling/v2/HorizontalPodAutoscaler': (d) => new HorizontalPodAutoscaler(d as never),
  'networking.k8s.io/v1/NetworkPolicy': (d) => new NetworkPolicy(d as never),
  'networking.k8s.io/v1/Ingress': (d) => new Ingress(d as never),
};

interface Kustomization {
  namespace?: string;
  resources?: string[];
}

interface Doc {
  file: string;
  index: number;
  data: Record<string, unknown>;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(name) ? [path] : [];
    });
}

function loadDocs(): { docs: Doc[]; parseErrors: string[] } {
  const docs: Doc[] = [];
  const parseErrors: string[] = [];
  for (const path of yamlFiles(K8S)) {
    const file = relative(ROOT, path);
    parseAllDocuments(readFileSync(path, 'utf8')).forEach((doc, index) => {
      if (doc.errors.length > 0) parseErrors.push(`${file} #${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const data: unknown = doc.toJS();
      if (data === null || data === undefined) return;
      if (typeof data !== 'object' || Array.isArray(data)) parseErrors.push(`${file} #${index}: not a mapping`);
      else docs.push({ file, index, data: data as Record<string, unknown> });
    });
  }
  return { docs, parseErrors };
}

const { docs, parseErrors } = loadDocs();
const isKustomization = (d: Doc): boolean => d.data.kind === 'Kustomization';
const kustomizations = docs.filter(isKustomization);
const apiDocs = docs.filter((d) => !isKustomization(d));
const label = (d: Doc): string =>
  `${d.file} #${d.index} ${String(d.data.kind)}/${String((d.data.metadata as { name?: string } | undefined)?.name)}`;

/** Builds the typed model for a document; unknown apiVersion/kind throws. */
function toModel(d: Doc): K8sObject {
  const key = `${String(d.data.apiVersion)}/${String(d.data.kind)}`;
  const make = MODELS[key];
  if (!make) throw new Error(`${label(d)}: unknown apiVersion/kind ${key}; add its kubernetes-models class to MODELS`);
  return make(d.data);
}

const objects = apiDocs.flatMap((d) => {
  try {
    return [{ doc: d, obj: toModel(d) }];
  } catch {
    return [];
  }
});
const ofKind = <T extends K8sObject>(ctor: abstract new (...args: never[]) => T): T[] =>
  objects.map((o) => o.obj).filter((o): o is T => o instanceof ctor);
const deployments = ofKind(Deployment);
const services = ofKind(Service);
const configMaps = ofKind(ConfigMap);
const secrets = ofKind(Secret);

const nsOf = (o: K8sObject): string | undefined => o.metadata?.namespace;
const find = <T extends K8sObject>(list: T[], name: string, ns: string | undefined): T | undefined =>
  list.find((o) => o.metadata?.name === name && nsOf(o) === ns);
const isSubset = (sub: Record<string, string> | undefined, sup: Record<string, string> | undefined): boolean =>
  !!sub && Object.keys(sub).length > 0 && Object.entries(sub).every(([k, v]) => sup?.[k] === v);

function containersOf(d: Deployment): IContainer[] {
  return d.spec?.template.spec?.containers ?? [];
}

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

/** The environment a container gets; throws when a referenced ConfigMap, Secret or key is not under k8s/. */
function containerEnv(c: IContainer, ns: string | undefined): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const from of c.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const cm = find(configMaps, from.configMapRef.name ?? '', ns);
      if (!cm) throw new Error(`container ${c.name}: ConfigMap ${from.configMapRef.name} is not defined under k8s/`);
      for (const [k, v] of Object.entries(cm.data ?? {})) env[prefix + k] = v;
    }
    if (from.secretRef) {
      const s = find(secrets, from.secretRef.name ?? '', ns);
      if (!s) throw new Error(`container ${c.name}: Secret ${from.secretRef.name} is not defined under k8s/`);
      for (const [k, v] of Object.entries(secretValues(s))) env[prefix + k] = v;
    }
  }
  for (const e of c.env ?? []) {
    const cmRef = e.valueFrom?.configMapKeyRef;
    const secretRef = e.valueFrom?.secretKeyRef;
    if (cmRef) {
      const value = find(configMaps, cmRef.name ?? '', ns)?.data?.[cmRef.key];
      if (value === undefined) throw new Error(`env ${e.name}: ConfigMap ${cmRef.name} has no key ${cmRef.key}`);
      env[e.name] = value;
    } else if (secretRef) {
      const s = find(secrets, secretRef.name ?? '', ns);
      const value = s ? secretValues(s)[secretRef.key] : undefined;
      if (value === undefined) throw new Error(`env ${e.name}: Secret ${secretRef.name} has no key ${secretRef.key}`);
      env[e.name] = value;
    } else {
      env[e.name] = e.value;
    }
  }
  return env;
}

function preStopSeconds(c: IContainer): number {
  const preStop = c.lifecycle?.preStop as { exec?: { command?: string[] }; sleep?: { seconds?: number } } | undefined;
  const [cmd, arg] = preStop?.exec?.command ?? [];
  if (cmd === 'sleep' && arg !== undefined) return Number(arg);
  return preStop?.sleep?.seconds ?? 0;
}

async function configVariables(service: string): Promise<{ name: string; required: boolean }[] | undefined> {
  const path = join(ROOT, 'services', service, 'src', 'config.ts');
  if (!existsSync(path)) return undefined;
  const mod = (await import(path)) as { configSchema?: Parameters<typeof describeConfig>[0] };
  return mod.configSchema ? describeConfig(mod.configSchema) : undefined;
}

const deploymentCases = deployments.map((d) => [d.metadata?.name ?? '?', d] as const);

describe('k8s/ YAML', () => {
  it('parses every document without errors and finds the manifests', () => {
    expect(parseErrors).toEqual([]);
    expect(deployments.length).toBeGreaterThan(0);
    expect(kustomizations.length).toBeGreaterThan(0);
  });

  it.each(apiDocs.map((d) => [label(d), d] as const))('%s is valid against the Kubernetes schema', (_name, d) => {
    const obj = toModel(d);
    expect(() => obj.validate()).not.toThrow();
    expect(obj.metadata?.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('fails on a kind it does not know', () => {
    expect(() => toModel({ file: 'x.yaml', index: 0, data: { apiVersion: 'v1', kind: 'Bogus' } })).toThrow(/unknown/);
  });
});

describe.each(deploymentCases)('Deployment %s', (name, d) => {
  const ns = nsOf(d);
  const pod = d.spec?.template;
  const containers = containersOf(d);

  it('selects its own pods and has containers', () => {
    expect(isSubset(d.spec?.selector.matchLabels, pod?.metadata?.labels)).toBe(true);
    expect(pod?.metadata?.labels?.[NAME_LABEL]).toBe(name);
    expect(containers.length).toBeGreaterThan(0);
  });

  it.each(containers.map((c) => [c.name, c] as const))('container %s has probes, resources and security', (_n, c) => {
    expect(c.image).toEqual(expect.any(String));
    expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(resolvePort(c, c.livenessProbe?.httpGet?.port)).toBeDefined();
    expect(resolvePort(c, c.readinessProbe?.httpGet?.port)).toBeDefined();
    expect(c.resources?.requests?.cpu).toBeDefined();
    expect(c.resources?.requests?.memory).toBeDefined();
    expect(c.resources?.limits?.memory).toBeDefined();
    expect(c.resources?.limits?.cpu).toBeDefined();

    const podSec = pod?.spec?.securityContext;
    const sec = c.securityContext;
    expect(sec?.runAsNonRoot ?? podSec?.runAsNonRoot).toBe(true);
    // A numeric user lets the kubelet verify runAsNonRoot for an image whose USER is a name ("node").
    expect(sec?.runAsUser ?? podSec?.runAsUser).toBeGreaterThan(0);
    expect(sec?.readOnlyRootFilesystem).toBe(true);
    expect(sec?.allowPrivilegeEscalation).toBe(false);
    expect(sec?.privileged ?? false).toBe(false);
    expect(sec?.capabilities?.drop).toContain('ALL');
  });

  it.each(containers.map((c) => [c.name, c] as const))('container %s gets env that exists and fits', (_n, c) => {
    const env = containerEnv(c, ns);
    expect(c.envFrom?.some((f) => f.configMapRef)).toBe(true);
    expect(c.envFrom?.some((f) => f.secretRef)).toBe(true);
    for (const from of c.envFrom ?? []) {
      expect(from.configMapRef?.optional ?? from.secretRef?.optional ?? false).toBe(false);
    }
    const port = Number(env.PORT);
    expect(port).toBe(CONTRACT_PORTS[name]);
    expect(c.ports?.map((p) => p.containerPort)).toContain(port);
    const graceMs = Number(env.SHUTDOWN_GRACE_MS ?? 10000);
    expect((d.spec?.template.spec?.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(
      graceMs + preStopSeconds(c) * 1000,
    );
    if (env.CREDENTIALS_ENCRYPTION_KEY !== undefined) {
      expect(env.CREDENTIALS_ENCRYPTION_KEY).toMatch(/^[0-9a-fA-F]{64}$/);
      expect(env.CREDENTIALS_ENCRYPTION_KEY).not.toMatch(/^(.)\1*$/);
    }
  });

  it('provides every variable the service requires, and only variables it reads', async () => {
    const vars = await configVariables(name);
    if (!vars) return; // no services/<name>/src/config.ts with a configSchema yet: nothing to compare against
    const env = Object.assign({}, ...containers.map((c) => containerEnv(c, ns))) as Record<string, unknown>;
    const missing = vars.filter((v) => v.required && env[v.name] === undefined).map((v) => v.name);
    const known = new Set([...vars.map((v) => v.name), ...RUNTIME_VARS]);
    expect(missing).toEqual([]);
    expect(Object.keys(env).filter((k) => !known.has(k))).toEqual([]);
  });
});

describe('Services', () => {
  it.each(services.map((s) => [s.metadata?.name ?? '?', s] as const))('%s selects a Deployment and its ports', (_n, s) => {
    expect(s.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    const targets = deployments.filter(
      (d) => nsOf(d) === nsOf(s) && isSubset(s.spec?.selector, d.spec?.template.metadata?.labels),
    );
    expect(targets).toHaveLength(1);
    const [container] = containersOf(targets[0]!);
    expect(s.spec?.ports?.length).toBeGreaterThan(0);
    for (const p of s.spec?.ports ?? []) {
      expect(resolvePort(container!, p.targetPort ?? p.port)).toBeDefined();
      expect(p.port).toBe(CONTRACT_PORTS[targets[0]!.metadata?.name ?? '']);
    }
  });

  it('every Deployment is exposed by a Service', () => {
    for (const d of deployments) {
      const exposed = services.some((s) => nsOf(s) === nsOf(d) && isSubset(s.spec?.selector, d.spec?.template.metadata?.labels));
      expect({ deployment: d.metadata?.name, exposed }).toEqual({ deployment: d.metadata?.name, exposed: true });
    }
  });

  it('every PodDisruptionBudget selects a Deployment', () => {
    for (const pdb of ofKind(PodDisruptionBudget)) {
      const matched = deployments.some((d) => isSubset(pdb.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels));
      expect({ pdb: pdb.metadata?.name, matched }).toEqual({ pdb: pdb.metadata?.name, matched: true });
    }
  });
});

describe('Secrets', () => {
  it('are examples only, never deployed by kustomize, with stringData', () => {
    const secretDocs = objects.filter((o) => o.obj instanceof Secret).map((o) => o.doc);
    expect(secretDocs.length).toBeGreaterThan(0);
    for (const d of secretDocs) {
      expect(basename(d.file)).toMatch(/\.example\.ya?ml$/);
      expect(d.data.stringData).toEqual(expect.any(Object));
    }
  });
});

describe('kustomization.yaml', () => {
  const rootFile = join(K8S, 'kustomization.yaml');

  /** Files a kustomization reaches, following directory resources into their own kustomization.yaml. */
  function reachable(file: string, seen = new Set<string>()): string[] {
    const k = parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() as Kustomization;
    const out: string[] = [];
    for (const entry of k.resources ?? []) {
      const path = resolve(dirname(file), entry);
      if (!existsSync(path)) throw new Error(`${relative(ROOT, file)} lists ${entry}, which does not exist`);
      if (statSync(path).isDirectory()) {
        const nested = join(path, 'kustomization.yaml');
        if (!existsSync(nested)) throw new Error(`${relative(ROOT, file)} lists ${entry}/ without a kustomization.yaml`);
        if (!seen.has(nested)) out.push(...reachable(nested, seen.add(nested)));
      } else {
        out.push(relative(ROOT, path));
      }
    }
    return out;
  }

  it('lists only files that exist, and every manifest except the secret examples', () => {
    expect(existsSync(rootFile)).toBe(true);
    const listed = reachable(rootFile);
    const manifests = [...new Set(apiDocs.map((d) => d.file))];
    expect(listed.filter((f) => /\.example\.ya?ml$/.test(f))).toEqual([]);
    expect(manifests.filter((f) => !/\.example\.ya?ml$/.test(f) && !listed.includes(f))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('puts everything in the declared Namespace', () => {
    const root = parseAllDocuments(readFileSync(rootFile, 'utf8'))[0]?.toJS() as Kustomization;
    const namespaces = ofKind(Namespace).map((n) => n.metadata?.name);
    expect(namespaces).toEqual([root.namespace]);
    for (const { obj } of objects.filter((o) => !(o.obj instanceof Namespace))) {
      expect(nsOf(obj)).toBe(root.namespace);
    }
  });
});

describe('autoscaling, network policies and the Ingress', () => {
  const hpas = ofKind(HorizontalPodAutoscaler);
  const policies = ofKind(NetworkPolicy);
  const nameOf = (o: K8sObject) => o.metadata?.name ?? '';

  it('every Deployment has a HorizontalPodAutoscaler, never below its PodDisruptionBudget', () => {
    for (const d of deployments) {
      const hpa = hpas.find((h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === nameOf(d));
      expect(hpa).toBeDefined();
      expect(hpa!.spec!.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa!.spec!.maxReplicas).toBeGreaterThan(hpa!.spec!.minReplicas!);
    }
  });

  it('the worker scales on its queue depth', () => {
    const worker = hpas.find((h) => nameOf(h) === 'worker');
    expect(worker?.spec?.metrics?.some((m) => m.type === 'External' && m.external?.metric.name === 'queue_jobs')).toBe(true);
  });

  it('denies everything by default, both ways', () => {
    const deny = policies.find((p) => Object.keys(p.spec?.podSelector ?? {}).length === 0 && !p.spec?.ingress && !p.spec?.egress);
    expect(deny?.spec?.policyTypes).toEqual(expect.arrayContaining(['Ingress', 'Egress']));
  });

  it('lets each API service be reached only from named pods on its own port, and the gateway only from the ingress', () => {
    for (const d of deployments.filter((x) => nameOf(x) !== 'worker')) {
      const name = nameOf(d);
      const port = CONTRACT_PORTS[name];
      const allowing = policies.filter((p) => p.spec?.podSelector.matchLabels?.[NAME_LABEL] === name && p.spec.ingress?.length);
      expect(allowing.length).toBeGreaterThan(0);
      for (const rule of allowing.flatMap((p) => p.spec!.ingress!)) {
        expect(rule.ports?.map((p) => p.port)).toEqual([port]);
        expect(rule.from?.length).toBeGreaterThan(0);
      }
    }
  });

  it('routes the Ingress to the gateway Service', () => {
    const ingresses = ofKind(Ingress);
    expect(ingresses).toHaveLength(1);
    const backends = ingresses[0]!.spec!.rules!.flatMap((r) => r.http?.paths ?? []).map((p) => p.backend.service);
    expect(backends).toEqual([{ name: 'gateway', port: { number: CONTRACT_PORTS.gateway } }]);
    expect(services.some((s) => nameOf(s) === 'gateway')).toBe(true);
  });
});
