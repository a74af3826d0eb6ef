/**
 * Generates the TypeScript types of the request and response shapes from their joi schemas: for every
 * `libs/*\/src/**\/*.schemas.ts` and `services/*\/src/**\/*.schemas.ts`, each exported schema named with
 * `.meta({ className: 'Name' })` becomes `export interface Name` (joi-to-typescript) in the file beside it,
 * `<feature>.schemas.types.ts`. The schema is then declared as `Joi.object<Name>(...)`, so `validate()` returns it.
 *
 * Run `pnpm schemas:types [path prefix ...]` after changing a schema (prefixes such as `services/rag` limit what is
 * written); `test/openapi/schema-types.test.ts` fails while a committed file
 * differs from what this would write. Types describe the value `validate()` returns: defaults applied (a defaulted
 * key is present), and a `null` that `.empty(null)` turns into the default is not part of the type.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { basename, dirname, join, relative } = require('node:path');

const { registerTypeScript, ROOT } = require('./ts-require.cjs');

const HEADER = (source) =>
  `// Generated from ${source} by \`pnpm schemas:types\` (scripts/schema-types.cjs): edit the schemas, not this file.\n`;

/** The `*.schemas.ts` files of the workspace, sorted. */
function schemaFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.schemas.ts')) out.push(path);
    }
  };
  for (const group of ['libs', 'services']) {
    for (const pkg of readdirSync(join(ROOT, group)).sort()) {
      const src = join(ROOT, group, pkg, 'src');
      if (existsSync(src)) walk(src);
    }
  }
  return out;
}

/** `libs/<name>` or `services/<name>`. */
const packageOf = (file) => relative(ROOT, file).split('/').slice(0, 2).join('/');

const typesFileOf = (schemaFile) => schemaFile.replace(/\.schemas\.ts$/, '.schemas.types.ts');

/** The description with every `null` that `.empty(null)` replaces removed from the allowed values. */
function validatedForm(description) {
  if (Array.isArray(description)) return description.map(validatedForm);
  if (!description || typeof description !== 'object') return description;
  const out = {};
  for (const [k, v] of Object.entries(description)) out[k] = validatedForm(v);
  const empty = description.flags && description.flags.empty;
  if (empty && Array.isArray(empty.allow) && empty.allow.includes(null) && Array.isArray(out.allow)) {
    out.allow = out.allow.filter((a) => a !== null);
    if (out.allow.length === 0) delete out.allow;
  }
  return out;
}

/** The named schemas a module exports: [className, schema], in export order, each schema once. */
function namedSchemas(mod, Joi) {
  const seen = new Set();
  const out = [];
  for (const value of Object.values(mod)) {
    if (!Joi.isSchema(value) || seen.has(value)) continue;
    seen.add(value);
    const metas = value.describe().metas || [];
    const named = metas.filter((m) => m && typeof m.className === 'string').pop();
    if (named) out.push([named.className, value]);
  }
  return out;
}

/** `text` as the repo's Prettier formats the file `target` (its CLI: the API needs dynamic imports jest lacks). */
function formatted(text, target) {
  const cli = join(dirname(require.resolve('prettier/package.json', { paths: [ROOT] })), 'bin', 'prettier.cjs');
  return execFileSync(process.execPath, [cli, '--stdin-filepath', target], { input: text, encoding: 'utf8' });
}

/**
 * The converter's TypeScript made lint-clean: `string | ''` is `string` (an allowed empty string is still a string),
 * and `any` (joi's any() and untyped arrays) is `unknown`, outside comments.
 */
function tidy(ts) {
  return ts
    .split('\n')
    .map((line) => {
      if (/^\s*(\/\*\*|\*)/.test(line)) return line;
      return line
        .replace(/\bstring \| ''/g, 'string')
        .replace(/'' \| string\b/g, 'string')
        .replace(/(\bstring\b[^;]*?) \| ''/g, '$1')
        .replace(/\bany\b/g, 'unknown');
    })
    .join('\n');
}

/** { file: content } of every generated types file, formatted as the repo's Prettier would. `load` requires a module. */
async function generate(load, only = []) {
  const wanted = (file) => only.length === 0 || only.some((prefix) => relative(ROOT, file).startsWith(prefix));
  const Joi = load(require.resolve('joi', { paths: [join(ROOT, 'libs', 'http')] }));
  const { convertSchema } = load(require.resolve('joi-to-typescript', { paths: [ROOT] }));
  const settings = {
    treatDefaultedOptionalAsRequired: true,
    sortPropertiesByName: false,
    commentEverything: false,
    supplyDefaultsInType: false,
  };
  const files = schemaFiles();
  const definedIn = new Map(); // `<package>:<className>` → types file
  const perFile = [];
  for (const file of files) {
    let mod;
    try {
      mod = load(file);
    } catch (error) {
      // Another package's schemas may be mid-edit when only some are asked for: theirs are skipped, ours must load.
      if (wanted(file)) throw error;
      process.stderr.write(`skipped ${relative(ROOT, file)}: ${error.message}\n`);
      continue;
    }
    const named = namedSchemas(mod, Joi);
    for (const [name] of named) {
      const key = `${packageOf(file)}:${name}`;
      if (definedIn.has(key)) throw new Error(`${name} is named twice in ${packageOf(file)}`);
      definedIn.set(key, typesFileOf(file));
    }
    perFile.push([file, named]);
  }
  const out = {};
  for (const [file, named] of perFile) {
    if (named.length === 0 || !wanted(file)) continue;
    const target = typesFileOf(file);
    const blocks = [];
    const imports = new Map(); // types file → names
    for (const [name, schema] of named) {
      const converted = convertSchema(settings, Joi.build(validatedForm(schema.describe())), name, true);
      // The schema's own description comes first, as a doc comment: `export` goes after it.
      const content = tidy(converted.content.replace(/^export /m, ''));
      blocks.push(content.replace(/^((?:\/\*\*[\s\S]*?\*\/\s*)?)(interface|type) /, '$1export $2 '));
      for (const custom of converted.customTypes) {
        // A name is unique within its package; a service may also use the libraries' named shapes.
        const from =
          definedIn.get(`${packageOf(file)}:${custom}`) ??
          [...definedIn].find(([key]) => key.startsWith('libs/') && key.endsWith(`:${custom}`))?.[1];
        if (!from) throw new Error(`${name} refers to ${custom}, which no schemas file names`);
        if (from === target) continue;
        if (!imports.has(from)) imports.set(from, new Set());
        imports.get(from).add(custom);
      }
    }
    const importLines = [...imports].map(([from, names]) => {
      const list = [...names].sort().join(', ');
      if (packageOf(from) === packageOf(target)) {
        const path = relative(dirname(target), from).replace(/\.ts$/, '');
        return `import type { ${list} } from '${path.startsWith('.') ? path : `./${path}`}';`;
      }
      const [group, pkg] = packageOf(from).split('/');
      if (group !== 'libs') throw new Error(`${relative(ROOT, target)} refers to another service's shapes`);
      return `import type { ${list} } from '@platform/${pkg}';`;
    });
    const text = [HEADER(basename(file)), importLines.join('\n'), blocks.join('\n\n')].join('\n');
    out[target] = formatted(text, target);
  }
  return out;
}

async function main() {
  registerTypeScript();
  const files = await generate(require, process.argv.slice(2));
  for (const [file, content] of Object.entries(files)) {
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (before !== content) writeFileSync(file, content);
    process.stdout.write(`${relative(ROOT, file)}${before === content ? '' : ' (written)'}\n`);
  }
}

module.exports = { generate, schemaFiles, typesFileOf };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  });
}
