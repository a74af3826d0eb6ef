/**
 * What the k8s manifest tests share: each overlay under k8s/overlays rendered with the pinned kustomize, every
 * document turned into its kubernetes-models object (valid Kubernetes by the bundled OpenAPI schemas), the Secret
 * examples, and the environment each container gets from its ConfigMap and its Secret example.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
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
import { parseAllDocuments } from 'yaml';

import { K8S, k8sTools, ROOT } from './deploy-helpers';

export const NAME_LABEL = 'app.kubernetes.io/name';

export type K8sObject =
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

export const MODELS: Record<string, (data: object) => K8sObject> = {
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

export interface Doc {
  source: string;
  data: Record<string, unknown>;
}

export const label = (d: Doc): string =>
  `${d.source} ${String(d.data.kind)}/${String((d.data.metadata as { name?: string } | undefined)?.name)}`;

/** Builds the typed model for a document; unknown apiVersion/kind throws. */
export function toModel(d: Doc): K8sObject {
  const key = `${String(d.data.apiVersion)}/${String(d.data.kind)}`;
  const make = MODELS[key];
  if (!make) throw new Error(`${label(d)}: unknown apiVersion/kind ${key}; add its kubernetes-models class to MODELS`);
  return make(d.data);
}

export function parseDocs(text: string, source: string): Doc[] {
  return parseAllDocuments(text).flatMap((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${source} #${index}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const data: unknown = doc.toJS();
    if (data === null || data === undefined) return [];
    if (typeof data !== 'object' || Array.isArray(data)) throw new Error(`${source} #${index}: not a mapping`);
    return [{ source, data: data as Record<string, unknown> }];
  });
}

export function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return files(path, pattern);
      return pattern.test(name) ? [path] : [];
    });
}

const { kustomize } = k8sTools();
export const OVERLAYS = readdirSync(join(K8S, 'overlays'))
  .filter((n) => statSync(join(K8S, 'overlays', n)).isDirectory())
  .sort();

/** What `kubectl apply -k k8s/overlays/<name>` would send. */
export function render(overlay: string): Doc[] {
  const text = execFileSync(kustomize, ['build', join(K8S, 'overlays', overlay)], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return parseDocs(text, `overlays/${overlay}`);
}

/** The Secret examples (never deployed): what each Deployment's secretRef stands for. */
export const exampleDocs = files(join(K8S, 'base'), /\.example\.ya?ml$/).flatMap((f) =>
  parseDocs(readFileSync(f, 'utf8'), relative(ROOT, f)),
);
export const exampleSecrets = exampleDocs.map((d) => toModel(d)).filter((o): o is Secret => o instanceof Secret);

export const nameOf = (o: K8sObject): string => o.metadata?.name ?? '';
export const nsOf = (o: K8sObject): string | undefined => o.metadata?.namespace;
export const isSubset = (sub: Record<string, string> | undefined, sup: Record<string, string> | undefined): boolean =>
  !!sub && Object.keys(sub).length > 0 && Object.entries(sub).every(([k, v]) => sup?.[k] === v);
export const containersOf = (d: Deployment): IContainer[] => d.spec?.template.spec?.containers ?? [];

/** Resolves a probe or Service port (number or port name) to a containerPort the container declares. */
export function resolvePort(c: IContainer, port: number | string | undefined): number | undefined {
  const ports = c.ports ?? [];
  if (typeof port === 'number') return ports.some((p) => p.containerPort === port) ? port : undefined;
  return ports.find((p) => p.name !== undefined && p.name === port)?.containerPort;
}

export function secretValues(s: Secret): Record<string, string> {
  const decoded = Object.fromEntries(
    Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
  return { ...decoded, ...s.stringData };
}

export function preStopSeconds(c: IContainer): number {
  const preStop = c.lifecycle?.preStop as { exec?: { command?: string[] }; sleep?: { seconds?: number } } | undefined;
  const [cmd, arg] = preStop?.exec?.command ?? [];
  if (cmd === 'sleep' && arg !== undefined) return Number(arg);
  return preStop?.sleep?.seconds ?? 0;
}

/** An overlay's rendered objects, by kind. */
export function objectsOf(docs: Doc[]) {
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
