/**
 * Regenerates the SDK from the services' own OpenAPI builders: for every `services/<name>/src/openapi.ts` that exports
 * a document with operations (`export const openapi`), writes `openapi/<name>.json` and, with openapi-typescript,
 * `src/generated/<name>.ts`. Run `pnpm --filter @platform/sdk run generate` after changing a document; the test
 * `test/openapi/sdk.test.ts` fails while the committed files differ from what this would write.
 *
 * The builders are TypeScript, loaded through `scripts/ts-require.cjs`, so nothing needs building first.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const { registerTypeScript } = require('../../../scripts/ts-require.cjs');

const SDK = join(__dirname, '..');
const ROOT = join(SDK, '..', '..');
const SERVICES = join(ROOT, 'services');
const CLI = join(SDK, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

/** The documents with operations, by service name, in name order. `load(path)` loads a builder module. */
function documents(load) {
  const out = {};
  for (const name of readdirSync(SERVICES).sort()) {
    const file = join(SERVICES, name, 'src', 'openapi.ts');
    if (!existsSync(file)) continue;
    const doc = load(file).openapi;
    if (doc && typeof doc === 'object' && Object.keys(doc.paths ?? {}).length > 0) out[name] = doc;
  }
  return out;
}

/** The committed form of a document. */
const documentJson = (doc) => `${JSON.stringify(doc, null, 2)}\n`;

/**
 * The TypeScript openapi-typescript makes of the document file `jsonPath`. A documented default does not make a key
 * required: a client may leave out what the service fills in (`--default-non-nullable=false`).
 */
function typesOf(jsonPath) {
  return execFileSync(process.execPath, [CLI, jsonPath, '--default-non-nullable=false'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function main() {
  registerTypeScript();
  mkdirSync(join(SDK, 'openapi'), { recursive: true });
  mkdirSync(join(SDK, 'src', 'generated'), { recursive: true });
  for (const [name, doc] of Object.entries(documents(require))) {
    const jsonPath = join(SDK, 'openapi', `${name}.json`);
    writeFileSync(jsonPath, documentJson(doc));
    writeFileSync(join(SDK, 'src', 'generated', `${name}.ts`), typesOf(jsonPath));
    process.stdout.write(`${name}: openapi/${name}.json, src/generated/${name}.ts\n`);
  }
}

module.exports = { documents, documentJson, typesOf, SDK };

if (require.main === module) main();
