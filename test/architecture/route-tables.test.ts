/**
 * Each route is declared once, in a route table (`route({...})` of `@platform/http`): no service registers an express
 * route with a path of its own, and no service's `openapi.ts` writes a path by hand (the document's paths are written
 * from the tables). `test/openapi/coverage.test.ts` checks the other half: what an app serves and what its document
 * says are the same, both ways.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SERVICES = join(ROOT, 'services');

/**
 * Documents of mounted sub-applications, not routes of ours: the worker's queue dashboard (Bull Board serves the pages
 * and API under its path; the coverage test checks that the mount is documented).
 */
const SUB_APP_DOCUMENTS = new Set(['services/worker/src/openapi.ts']);

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const serviceSources = readdirSync(SERVICES)
  .filter((s) => statSync(join(SERVICES, s, 'src'), { throwIfNoEntry: false })?.isDirectory())
  .flatMap((s) => sourcesUnder(join(SERVICES, s, 'src')))
  .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

/** `router.get('/path', ...)`, `r.post(['/a', '/b'], ...)`, `app.all(\`/x\`, ...)`: an express route with its own path. */
const EXPRESS_ROUTE = /\.(get|post|put|patch|delete|all)\(\s*\[?\s*['"`]\//;
/** `'/v1/things': {` (or a computed `[SOME_PATH]: {`) at the start of a line: a path object written by hand. */
const HAND_WRITTEN_PATH = /^\s*(['"`]\/[^'"`]*['"`]|\[[A-Z_]+\])\s*:\s*\{/m;

test('services are read', () => {
  expect(serviceSources.length).toBeGreaterThan(50);
  expect(serviceSources.map((s) => s.path)).toContain('services/rai/src/openapi.ts');
});

test('no service registers an express route outside a route table', () => {
  const found = serviceSources.flatMap(({ path, text }) =>
    text
      .split('\n')
      .map((line, i) => ({ line, at: `${path}:${i + 1}` }))
      .filter(({ line }) => EXPRESS_ROUTE.test(line))
      .map(({ line, at }) => `${at}: ${line.trim()}`),
  );
  expect(found).toEqual([]);
});

test("no service's OpenAPI document writes a path by hand", () => {
  const documents = serviceSources.filter((s) => s.path.endsWith('/src/openapi.ts'));
  expect(documents.length).toBeGreaterThanOrEqual(8);
  const handWritten = documents
    .filter(({ path, text }) => !SUB_APP_DOCUMENTS.has(path) && HAND_WRITTEN_PATH.test(text))
    .map(({ path, text }) => `${path}: ${HAND_WRITTEN_PATH.exec(text)![0].trim()}`);
  expect(handWritten).toEqual([]);
});

test('the checks see what they look for', () => {
  expect(EXPRESS_ROUTE.test("  r.post('/v1/things', async (req, res) => {")).toBe(true);
  expect(EXPRESS_ROUTE.test("  router.get(['/a', '/b'], page);")).toBe(true);
  expect(EXPRESS_ROUTE.test('  const x = await cache.get(key);')).toBe(false);
  expect(HAND_WRITTEN_PATH.test("  paths: {\n    '/v1/things': {\n      get: {}")).toBe(true);
  expect(HAND_WRITTEN_PATH.test('  [BOARD_PATH]: {\n')).toBe(true);
  expect(HAND_WRITTEN_PATH.test("  headers: { 'x-session-id': { description: 'x' } },")).toBe(false);
});
