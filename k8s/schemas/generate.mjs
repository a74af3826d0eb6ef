// Writes the JSON schemas scripts/validate-k8s.sh gives kubeconform, one per kind the manifests use, in kubeconform's
// "{{ .ResourceKind }}{{ .KindSuffix }}.json" layout (deployment-apps-v1.json, service-v1.json, ...). They are made
// from the TypeScript definitions of the Kubernetes API in the npm package kubernetes-types (generated from the
// Kubernetes OpenAPI document of the release named in README.md), and they are strict: every object rejects
// properties the API does not define. Run through generate.sh, which installs the pinned generator packages in a
// temporary folder; the output is committed, so validation needs no network.
import { readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const toolDir = process.argv[2];
if (!toolDir)
  throw new Error('usage: node generate.mjs <folder with node_modules/{kubernetes-types,ts-json-schema-generator}>');
const require = createRequire(join(toolDir, 'package.json'));
const { createGenerator } = require('ts-json-schema-generator');
const typesDir = dirname(require.resolve('kubernetes-types/package.json'));

/** apiVersion, the kubernetes-types file declaring the kind, and the kind. */
const KINDS = [
  ['v1', 'core/v1', 'Namespace'],
  ['v1', 'core/v1', 'ConfigMap'],
  ['v1', 'core/v1', 'Secret'],
  ['v1', 'core/v1', 'Service'],
  ['apps/v1', 'apps/v1', 'Deployment'],
  ['apps/v1', 'apps/v1', 'StatefulSet'],
  ['batch/v1', 'batch/v1', 'Job'],
  ['policy/v1', 'policy/v1', 'PodDisruptionBudget'],
  ['autoscaling/v2', 'autoscaling/v2', 'HorizontalPodAutoscaler'],
  ['networking.k8s.io/v1', 'networking/v1', 'NetworkPolicy'],
  ['networking.k8s.io/v1', 'networking/v1', 'Ingress'],
];

/** kubeconform's KindSuffix: "-" + the first label of the group (if any) + "-" + the version. */
function fileName(apiVersion, kind) {
  const [groupOrVersion, version] = apiVersion.split('/');
  const suffix = version === undefined ? `-${groupOrVersion}` : `-${groupOrVersion.split('.')[0]}-${version}`;
  return `${kind.toLowerCase()}${suffix.toLowerCase()}.json`;
}

/** Quantities may be written as YAML numbers (cpu: 1) as well as strings, as the API server accepts. */
function patchDefinitions(schema) {
  const defs = schema.definitions ?? {};
  for (const name of Object.keys(defs)) {
    if (name === 'Quantity' || name.endsWith('.Quantity')) {
      defs[name] = { description: defs[name].description, oneOf: [{ type: 'string' }, { type: 'number' }] };
    }
  }
  return schema;
}

for (const name of readdirSync(here).filter((n) => n.endsWith('.json'))) unlinkSync(join(here, name));
for (const [apiVersion, file, kind] of KINDS) {
  const generator = createGenerator({
    path: join(typesDir, `${file}.d.ts`),
    tsconfig: undefined,
    type: kind,
    expose: 'export',
    topRef: false,
    jsDoc: 'basic',
    additionalProperties: false,
    skipTypeCheck: true,
  });
  const schema = patchDefinitions(generator.createSchema(kind));
  schema.required = [...new Set([...(schema.required ?? []), 'apiVersion', 'kind'])];
  writeFileSync(join(here, fileName(apiVersion, kind)), `${JSON.stringify(schema, null, 1)}\n`);
}
process.stdout.write(`wrote ${KINDS.length} schemas to ${here}\n`);
