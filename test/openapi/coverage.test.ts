/**
 * Every service's OpenAPI document is true to its app: each route the app serves is in the document and each
 * operation of the document is served (express params as `{param}`, trailing slashes ignored, parameter names not
 * compared); the document is OpenAPI 3.1 and every schema in it is valid JSON Schema 2020-12; /docs renders it.
 * Services are found by folder (`services/<name>/src/app.ts`), each built through its own createApp on real stores.
 */
import request from 'supertest';

import { createResponseChecker } from '@platform/testing';

import { routeInventory, shapeKey, toTemplate } from './route-inventory';
import { buildService, SERVICE_NAMES, sharedDeps, type BuiltService, type SharedDeps } from './service-apps';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
let shared: SharedDeps;
const built = new Map<string, BuiltService>();

/** Each service is built on its own, so that one that cannot be built fails its own tests only. */
const failures = new Map<string, Error>();

beforeAll(async () => {
  shared = await sharedDeps();
  for (const name of SERVICE_NAMES) {
    await buildService(name, shared).then(
      (s) => built.set(name, s),
      (err: Error) => failures.set(name, err),
    );
  }
}, 60_000);

/** `name`'s app; its build error when it could not be built. */
function service(name: string): BuiltService {
  const s = built.get(name);
  if (!s) throw failures.get(name) ?? new Error(`${name} was not built`);
  return s;
}

afterAll(async () => {
  await shared?.close();
}, 30_000);

type Paths = Record<string, Record<string, unknown>>;
const pathsOf = (s: BuiltService) => (s.doc.paths ?? {}) as Paths;

/** `METHOD /template` of every operation of the document. */
function documented(s: BuiltService): string[] {
  return Object.entries(pathsOf(s)).flatMap(([path, item]) =>
    METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${toTemplate(path)}`),
  );
}

/** What the app serves and the document lacks, and the reverse (a mounted sub-application serves what is under its prefix). */
function compare(s: BuiltService): { undocumented: string[]; unserved: string[]; unreadable: string[] } {
  const inv = routeInventory(s.app);
  const docShapes = new Set(documented(s).map((op) => shapeKey(op.split(' ')[0]!, op.split(' ')[1]!)));
  const servedShapes = new Set([...inv.routes].map((r) => shapeKey(r.split(' ')[0]!, r.split(' ')[1]!)));
  const underMount = (op: string) =>
    [...inv.mounts].some((m) => op.split(' ')[1] === m || op.split(' ')[1]!.startsWith(`${m}/`));
  const mountsDocumented = [...inv.mounts].filter(
    (m) => !documented(s).some((op) => op.split(' ')[1] === m || op.split(' ')[1]!.startsWith(`${m}/`)),
  );
  return {
    undocumented: [
      ...[...inv.routes].filter((r) => !docShapes.has(shapeKey(r.split(' ')[0]!, r.split(' ')[1]!))),
      ...mountsDocumented.map((m) => `(mounted app) ${m}`),
    ],
    unserved: documented(s).filter(
      (op) => !servedShapes.has(shapeKey(op.split(' ')[0]!, op.split(' ')[1]!)) && !underMount(op),
    ),
    unreadable: inv.unreadable,
  };
}

test('services are found by folder (each with src/app.ts)', () => {
  expect(SERVICE_NAMES).toEqual(
    expect.arrayContaining(['agent', 'gateway', 'ocr', 'rag', 'rai', 'scheduler', 'voice', 'worker']),
  );
});

describe.each(SERVICE_NAMES)('%s', (name) => {
  test('declares OpenAPI 3.1', () => {
    expect(service(name).doc.openapi).toMatch(/^3\.1\.\d+$/);
  });

  test('serves every operation its document lists, and documents every route it serves', () => {
    expect(compare(service(name))).toEqual({ undocumented: [], unserved: [], unreadable: [] });
  });

  test('every schema of its document is valid JSON Schema 2020-12 (no OpenAPI 3.0 keywords such as nullable)', () => {
    expect(createResponseChecker(service(name).doc).schemaProblems).toEqual([]);
  });

  test('every operation declares the path parameters of its template and gives its responses', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries(pathsOf(service(name)))) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const method of METHODS.filter((m) => m in item)) {
        const op = item[method] as {
          parameters?: { name: string; in: string; required?: boolean }[];
          responses?: Record<string, unknown>;
        };
        const declared = new Set((op.parameters ?? []).filter((p) => p.in === 'path' && p.required).map((p) => p.name));
        for (const n of names)
          if (!declared.has(n!))
            problems.push(`${method.toUpperCase()} ${path}: path parameter ${n} not declared as required`);
        if (Object.keys(op.responses ?? {}).length === 0)
          problems.push(`${method.toUpperCase()} ${path}: no responses`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('/docs renders the document', async () => {
    const res = await request(service(name).app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });
});

describe('the comparison itself', () => {
  test('a route the document lacks, and an operation nothing serves, are both reported', () => {
    const rai = service('rai');
    const paths = structuredClone(pathsOf(rai));
    const [firstPath, firstItem] = Object.entries(paths)[0]!;
    const firstMethod = METHODS.find((m) => m in firstItem)!;
    delete firstItem[firstMethod];
    paths['/v1/others/{other_id}'] = { get: { responses: { '200': { description: 'ok' } } } };
    const planted = compare({ ...rai, doc: { ...rai.doc, paths } });
    expect(planted.undocumented).toEqual([
      `${firstMethod.toUpperCase()} ${toTemplate(firstPath)}`.replace(/\{[^}]+\}/g, (p) => p),
    ]);
    expect(planted.unserved).toEqual(['GET /v1/others/{other_id}']);
  });
});
