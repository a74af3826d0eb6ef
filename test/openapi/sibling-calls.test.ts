/**
 * Every call one of our services makes to another is checked against the callee's document: the operation is served
 * (method and path template), and what the caller reads of its 200 (`SiblingOperation.response`) is what the callee's
 * document promises: each field the caller needs is one the callee always sends, in a type the caller accepts (a
 * callee that may send null, another type or another enum value where the caller refuses it fails here). The
 * operations are the ones the services declare (`siblingOperation`), found by loading every service's app.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { jsonSchemaOf } from '@platform/http';
import { siblingOperations, type SiblingOperation } from '@platform/service-client';

import { SERVICE_NAMES } from './service-apps';

type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, Schema> } };

const ROOT = join(__dirname, '..', '..');
const documentOf = (service: string): Doc =>
  JSON.parse(readFileSync(join(ROOT, 'libs', 'sdk', 'openapi', `${service}.json`), 'utf8')) as Doc;

// Loading each service's app loads every client module it assembles, and so their declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
for (const name of SERVICE_NAMES) require(join(ROOT, 'services', name, 'src', 'app.ts'));
const operations = siblingOperations();

const trimSlash = (p: string) => p.replace(/(.)\/+$/, '$1');
const describeOp = (op: SiblingOperation<unknown>) => `${op.service} ${op.method} ${op.path}`;

/** The callee's operation object for `op`, trailing slashes ignored. */
function calleeOperation(op: SiblingOperation<unknown>, doc: Doc): Schema | undefined {
  const entry = Object.entries(doc.paths).find(([path]) => trimSlash(path) === trimSlash(op.path));
  return entry?.[1][op.method.toLowerCase()];
}

function resolve(schema: Schema, doc: Doc): Schema {
  let s = schema;
  for (let i = 0; typeof s.$ref === 'string' && i < 20; i++) {
    s = doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return s;
}

const typesOf = (s: Schema): string[] | undefined => {
  if (Array.isArray(s.type)) return s.type as string[];
  if (typeof s.type === 'string') return [s.type];
  if (s.properties) return ['object'];
  if (s.items) return ['array'];
  return undefined;
};

/**
 * Where the callee's schema `e` lets through a value the caller's schema `c` refuses: the caller's needs (required
 * keys, types, enums) against what the callee promises. Empty when every answer the document allows satisfies the
 * caller.
 */
function mismatches(c: Schema, eIn: Schema, doc: Doc, at: string): string[] {
  const e = resolve(eIn, doc);
  const eAlts = (e.anyOf ?? e.oneOf) as Schema[] | undefined;
  if (eAlts) return eAlts.flatMap((alt, i) => mismatches(c, alt, doc, `${at}|${i}`));
  const cAlts = (c.anyOf ?? c.oneOf) as Schema[] | undefined;
  if (cAlts) {
    const fits = cAlts.some((alt) => mismatches(alt, e, doc, at).length === 0);
    return fits ? [] : [`${at}: the callee's answer fits none of the caller's alternatives`];
  }
  const cTypes = typesOf(c);
  const eTypes = typesOf(e);
  if (cTypes && !eTypes) return [`${at}: the callee does not say the type (caller needs ${cTypes.join('|')})`];
  if (cTypes && eTypes) {
    const refused = eTypes.filter((t) => !cTypes.includes(t) && !(t === 'integer' && cTypes.includes('number')));
    if (refused.length)
      return [`${at}: the callee may send ${refused.join('|')}, the caller takes ${cTypes.join('|')}`];
  }
  if (Array.isArray(c.enum)) {
    if (!Array.isArray(e.enum)) return [`${at}: the caller takes only ${JSON.stringify(c.enum)}`];
    const extra = (e.enum as unknown[]).filter((v) => !(c.enum as unknown[]).includes(v));
    if (extra.length) return [`${at}: the callee may send ${JSON.stringify(extra)}`];
  }
  const out: string[] = [];
  const cProps = (c.properties ?? {}) as Record<string, Schema>;
  const eProps = (e.properties ?? {}) as Record<string, Schema>;
  const eRequired = new Set((e.required as string[] | undefined) ?? []);
  for (const key of (c.required as string[] | undefined) ?? []) {
    if (!eRequired.has(key)) out.push(`${at}.${key}: the caller needs it, the callee may leave it out`);
  }
  for (const [key, sub] of Object.entries(cProps)) {
    if (eProps[key]) out.push(...mismatches(sub, eProps[key], doc, `${at}.${key}`));
  }
  if (c.items && e.items) out.push(...mismatches(c.items as Schema, e.items as Schema, doc, `${at}[]`));
  return out;
}

test('the services declare the calls they make to each other', () => {
  expect(operations.map(describeOp)).toEqual(
    expect.arrayContaining([
      'rai POST /v1/rai/inference',
      'rag GET /v3/rag/{config_id}/retrieve/',
      'graph GET /v4/knowledge_graph/retrieve/',
      'ocr POST /extract',
      'agent POST /v3/providers/credentials/{credential_id}/open',
      'agent GET /v3/agents/{agent_id}',
      'agent POST /v3/inference/chat/',
      'agent POST /v3/inference/task/{task_id}/run',
      'agent POST /v3/inference/task/{task_id}/fail',
    ]),
  );
});

describe.each(operations.map((op) => [describeOp(op), op] as const))('%s', (_name, op) => {
  const doc = documentOf(op.service);

  test('is an operation of the callee', () => {
    expect(calleeOperation(op, doc)).toBeDefined();
  });

  test("what the caller reads of a 200 is what the callee's document promises", () => {
    const operation = calleeOperation(op, doc)!;
    const ok = (operation.responses as Record<string, Schema>)['200'];
    const content = ok?.content as Record<string, { schema: Schema }> | undefined;
    expect(content?.['application/json']).toBeDefined();
    const caller = jsonSchemaOf(op.response, 'response');
    expect(mismatches(caller, content!['application/json']!.schema, doc, 'body')).toEqual([]);
  });
});

test('the check finds a field the callee may leave out, a null, a wrong type and an unknown enum value', () => {
  const doc: Doc = { paths: {}, components: { schemas: {} } };
  const caller = {
    type: 'object',
    required: ['id', 'n'],
    properties: { id: { type: 'string' }, n: { type: 'number' }, kind: { type: 'string', enum: ['a', 'b'] } },
  };
  const callee = {
    type: 'object',
    required: ['n'],
    properties: {
      id: { type: ['string', 'null'] },
      n: { type: 'integer' },
      kind: { type: 'string', enum: ['a', 'c'] },
    },
  };
  expect(mismatches(caller, callee, doc, 'body')).toEqual([
    'body.id: the caller needs it, the callee may leave it out',
    'body.id: the callee may send null, the caller takes string',
    'body.kind: the callee may send ["c"]',
  ]);
});
