/**
 * scripts/validate-k8s.sh, the offline gate CI runs: it renders each overlay with the pinned kustomize and validates
 * every object with kubeconform -strict against the schemas vendored in k8s/schemas. Passes on k8s/ as it is, and
 * fails on a copy with one planted fault of each kind it exists to catch.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { K8S, k8sTools, ROOT } from './deploy-helpers';

const SCRIPT = join(ROOT, 'scripts/validate-k8s.sh');

function validate(dir?: string): { status: number | null; output: string } {
  const r = spawnSync('bash', dir ? [SCRIPT, dir] : [SCRIPT], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** A copy of k8s/ with one file changed by `edit`. */
function plant(file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-planted-'));
  cpSync(K8S, dir, { recursive: true });
  const path = join(dir, file);
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
  return dir;
}

beforeAll(() => {
  k8sTools();
}, 600_000);

describe('scripts/validate-k8s.sh', () => {
  it('validates every overlay, alone and with each optional component, and the Secret examples of k8s/', () => {
    const { status, output } = validate();
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('k8s manifests valid') });
    const overlays = readdirSync(join(K8S, 'overlays')).sort();
    expect(overlays).toEqual(expect.arrayContaining(['dev', 'ha', 'prod']));
    for (const overlay of overlays) expect(output).toContain(`overlay ${overlay}:`);
    // Each optional component is rendered as used: added to an overlay, to each overlay in turn.
    const components = readdirSync(join(K8S, 'components')).sort();
    expect(components).toContain('tracing');
    for (const overlay of overlays) {
      for (const component of components) expect(output).toContain(`overlay ${overlay} with component ${component}:`);
    }
    const counts = [
      ...output.matchAll(/Summary: (\d+) resources? found .* Valid: (\d+), Invalid: 0, Errors: 0, Skipped: 0/g),
    ];
    // Each overlay, alone and with each component, then the Secret examples; every object validated, none skipped.
    expect(counts).toHaveLength(overlays.length * (1 + components.length) + 1);
    for (const [, found, valid] of counts) expect(Number(valid)).toBe(Number(found));
    expect(Number(counts[0]![1])).toBeGreaterThan(50);
  });

  const faults: [string, string, (t: string) => string, RegExp][] = [
    [
      'a misspelt field (strict schemas refuse unknown properties)',
      'base/agent/deployment.yaml',
      (t) => t.replace('readOnlyRootFilesystem: true', 'readOnlyRootFilesytem: true'),
      /Deployment agent is invalid.*readOnlyRootFilesytem/,
    ],
    [
      'a value of the wrong type',
      'base/worker/hpa.yaml',
      (t) => t.replace('stabilizationWindowSeconds: 300', 'stabilizationWindowSeconds: [300]'),
      /HorizontalPodAutoscaler worker is invalid/,
    ],
    [
      'a required field left out',
      'base/rag/service.yaml',
      (t) => t.replace(/\n {6}port: 3003\n/, '\n'),
      /Service rag is invalid.*port/,
    ],
    [
      'a kind without a vendored schema',
      'base/network/ingress.yaml',
      (t) => t.replace('kind: Ingress', 'kind: Ingresss'),
      /could not find schema for Ingresss/,
    ],
    [
      'an overlay that does not render',
      'overlays/prod/kustomization.yaml',
      (t) => t.replace('path: /spec/minAvailable', 'path: /spec/noSuchField/minAvailable'),
      /overlay prod does not render/,
    ],
    [
      "a misspelt field in the ha overlay's StatefulSet",
      'overlays/ha/redis-cluster/statefulset.yaml',
      (t) => t.replace('podManagementPolicy: Parallel', 'podManagmentPolicy: Parallel'),
      /StatefulSet redis-cluster is invalid.*podManagmentPolicy/,
    ],
    [
      'a Job missing its required template',
      'overlays/ha/mongodb/init-job.yaml',
      (t) => t.replace(/\n {2}template:\n {4}metadata:\n/, '\n  templat:\n    metadata:\n'),
      /Job mongo-init is invalid/,
    ],
    [
      "a misspelt field in the tracing component's StatefulSet",
      'components/tracing/jaeger.yaml',
      (t) => t.replace('readOnlyRootFilesystem: true', 'readOnlyRootFilesytem: true'),
      /StatefulSet jaeger is invalid.*readOnlyRootFilesytem/,
    ],
    [
      "a component that an overlay's patches do not apply to",
      'components/tracing/jaeger.yaml',
      (t) => t.replace('kind: StatefulSet', 'kind: Deployment'),
      /overlay prod with component tracing does not render/,
    ],
    [
      "a tracing component whose Jaeger configuration is no longer deploy/jaeger/config.yaml's",
      'components/tracing/config.yaml',
      (t) => t.replace('max_traces:', 'max_traces: 5 #'),
      /components\/tracing\/config\.yaml differs from deploy\/jaeger\/config\.yaml/,
    ],
    [
      'an invalid Secret example',
      'base/graph/secret.example.yaml',
      (t) => t.replace('type: Opaque', 'type: Opaque\nstringdata: {}'),
      /Secret graph-secrets is invalid.*stringdata/,
    ],
  ];

  it.each(faults)('fails on %s', (_name, file, edit, message) => {
    const dir = plant(file, edit);
    try {
      const { status, output } = validate(dir);
      expect(status).not.toBe(0);
      expect(output).toMatch(message);
      expect(output).not.toContain('k8s manifests valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
