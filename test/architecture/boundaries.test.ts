import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The import rules of `.dependency-cruiser.cjs` (run by `pnpm lint`) catch each kind of violation: a throwaway tree
 * with one planted violation per rule, and one clean service, is cruised with the repo's own config.
 */
const ROOT = resolve(__dirname, '../..');
const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node', strict: true } }),
  'node_modules/express/package.json': JSON.stringify({ name: 'express', main: 'index.js' }),
  'node_modules/express/index.js': 'module.exports = {};\n',
  // A lib importing a service.
  'libs/shared/src/index.ts': "export { helper } from '../../../services/one/src/thing.service';\n",
  // A service using express; routes reaching a repository; a repository importing its service.
  'services/one/src/thing.service.ts': "import express from 'express';\nexport const helper = () => express;\n",
  'services/one/src/thing.routes.ts': "import { find } from './thing.repository';\nexport const routes = find;\n",
  'services/one/src/thing.repository.ts': "import { helper } from './thing.service';\nexport const find = helper;\n",
  // Another service's code imported; an import cycle.
  'services/two/src/uses-one.ts': "import { find } from '../../one/src/thing.repository';\nexport const x = find;\n",
  'services/two/src/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
  'services/two/src/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  // A clean service in the expected shape.
  'services/clean/src/item.model.ts': 'export const model = {};\n',
  'services/clean/src/item.repository.ts': "import { model } from './item.model';\nexport const repo = { model };\n",
  'services/clean/src/item.service.ts': "import { repo } from './item.repository';\nexport const service = { repo };\n",
  'services/clean/src/item.routes.ts':
    "import express from 'express';\nimport { service } from './item.service';\nexport const routes = { express, service };\n",
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

let dir: string;
let violations: Violation[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  let out: string;
  try {
    out = execFileSync(
      join(ROOT, 'node_modules/.bin/depcruise'),
      ['--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json', 'libs', 'services'],
      { cwd: dir, encoding: 'utf8' },
    );
  } catch (err) {
    // depcruise exits non-zero when it finds errors; its JSON report is still on stdout.
    out = (err as { stdout: string }).stdout;
  }
  violations = (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hits = (rule: string) => violations.filter((v) => v.rule.name === rule).map((v) => `${v.from} -> ${v.to}`);

it('a lib importing a service fails', () => {
  expect(hits('libs-not-services')).toEqual(['libs/shared/src/index.ts -> services/one/src/thing.service.ts']);
});

it('a service importing another service’s code fails', () => {
  expect(hits('no-cross-service')).toEqual(['services/two/src/uses-one.ts -> services/one/src/thing.repository.ts']);
});

it('routes reaching a repository, a service using express and a repository importing a service fail', () => {
  expect(hits('routes-call-services')).toEqual([
    'services/one/src/thing.routes.ts -> services/one/src/thing.repository.ts',
  ]);
  expect(hits('services-free-of-http-and-storage')).toEqual([
    'services/one/src/thing.service.ts -> node_modules/express/index.js',
  ]);
  expect(hits('storage-below-services')).toEqual([
    'services/one/src/thing.repository.ts -> services/one/src/thing.service.ts',
  ]);
});

it('an import cycle fails', () => {
  // One report per cycle, from whichever of its modules is cruised first.
  expect(hits('no-cycles')).toHaveLength(1);
  expect(hits('no-cycles')[0]).toMatch(/^services\/two\/src\/(a|b)\.ts -> services\/two\/src\/(a|b)\.ts$/);
});

it('a service in the expected shape passes', () => {
  expect(violations.filter((v) => v.from.startsWith('services/clean/'))).toEqual([]);
});
