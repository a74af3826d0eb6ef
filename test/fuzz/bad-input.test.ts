/**
 * The rules of contract §1 on bad input, checked on every operation of the JSON services' documents (the fuzzer covers
 * the same ground at random; this names each case): 415 for bodies that are not JSON, U+0000 and lone surrogates
 * in body, query and path, depth, free-form JSON kept exactly.
 */
import request from 'supertest';

import { MAX_JSON_DEPTH, UNSUPPORTED_MEDIA_TYPE } from '@platform/http';

import { startAgentTarget } from './agent-target';
import { closeConnections, send } from './fuzz-runner';
import { fillPath, operationsOf, opName, type Operation } from './openapi-operations';
import { startRagTarget } from './rag-target';
import { startRaiTarget } from './rai-target';
import { routeKey, routeTable } from './route-table';
import { startSchedulerTarget } from './scheduler-target';
import type { Target } from './target-kit';

const targets: Record<string, Target> = {};
/** Each service, and how many operations its document has at least (a check that the document was read whole). */
const MIN_OPERATIONS = { scheduler: 30, agent: 20, rag: 5, rai: 5 } as const;
const SERVICES = Object.keys(MIN_OPERATIONS) as (keyof typeof MIN_OPERATIONS)[];

beforeAll(async () => {
  [targets.scheduler, targets.agent, targets.rag, targets.rai] = await Promise.all([
    startSchedulerTarget(),
    startAgentTarget(),
    startRagTarget(),
    startRaiTarget(),
  ]);
}, 180_000);

afterAll(async () => {
  closeConnections();
  await Promise.all(Object.values(targets).map((t) => t.close()));
}, 60_000);

const jsonOps = (t: Target) => operationsOf(t.doc).filter((op) => op.body && !op.rawBody);
/** The path of `op` with a real id (one that may be changed) for each parameter. */
const realPath = (t: Target, op: Operation) =>
  fillPath(
    op,
    Object.fromEntries(
      op.pathParams.map((p) => [p.name, encodeURIComponent(t.ctx.pathIds({ ...op, method: 'put' }, p.name)[0] ?? 'x')]),
    ),
  );
const call = (t: Target, op: Operation, path = realPath(t, op)) =>
  request(t.app)[op.method](path).set('x-api-key', t.ctx.apiKey);
/**
 * The contract's part of an error answer: its `detail` (an OpenAI-protocol route adds OpenAI's `error` object beside
 * it, services/agent completion.errors.ts); any other answer as it is.
 */
function contractPart(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    return 'detail' in body && 'error' in body ? JSON.stringify({ detail: body.detail }) : text;
  } catch {
    return text;
  }
}

/** A body for `op` whose first string field (or first item) is `bad`. */
function bodyWith(op: Operation, bad: string): { body: unknown; loc: (string | number)[] } {
  if (op.body?.type === 'array') return { body: ['ok', bad], loc: ['body', 1] };
  const props = Object.entries(op.body?.properties ?? {});
  const field = props.find(([, s]) => s.type === 'string')?.[0] ?? props[0]?.[0] ?? 'anything';
  return { body: { [field]: bad }, loc: ['body', field] };
}

describe.each(SERVICES)('%s', (service) => {
  test('its OpenAPI document lists every route it serves (so iterating the document covers them all)', () => {
    const t = targets[service]!;
    const documented = new Set(operationsOf(t.doc).map((op) => routeKey(op.method, op.path)));
    expect([...routeTable(t.app)].filter((r) => !documented.has(r))).toEqual([]);
    expect(documented.size).toBeGreaterThanOrEqual(MIN_OPERATIONS[service]);
  });

  test.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/xml'])(
    'every JSON route given a %s body → 415 {"detail":"Content-Type must be application/json"}',
    async (type) => {
      const t = targets[service]!;
      const answers: string[] = [];
      for (const op of jsonOps(t)) {
        const res = await call(t, op).set('content-type', type).send('{"name":"x"}');
        answers.push(`${opName(op)} → ${res.status} ${contractPart(res.text)}`);
      }
      expect(answers.length).toBeGreaterThanOrEqual(2);
      expect(answers.filter((a) => !a.endsWith(`→ 415 {"detail":"${UNSUPPORTED_MEDIA_TYPE}"}`))).toEqual([]);
    },
  );

  test('a JSON body labelled application/*+json is read as JSON, not refused', async () => {
    const t = targets[service]!;
    for (const op of jsonOps(t)) {
      const res = await call(t, op)
        .set('content-type', 'application/merge-patch+json')
        .send(JSON.stringify(bodyWith(op, 'a\u0000').body));
      expect([opName(op), res.status]).toEqual([opName(op), 422]);
    }
  });

  test('a body with no Content-Type at all → 415 on every JSON route', async () => {
    const t = targets[service]!;
    for (const op of jsonOps(t)) {
      const body = Buffer.from('{"name":"x"}');
      const res = await send(
        t.port,
        {
          op: opName(op),
          method: op.method.toUpperCase(),
          url: realPath(t, op),
          headers: { 'x-api-key': t.ctx.apiKey, 'content-length': String(body.length) },
          body,
          notes: [],
        },
        10_000,
      );
      expect([opName(op), res.status, contractPart(res.body)]).toEqual([
        opName(op),
        415,
        JSON.stringify({ detail: UNSUPPORTED_MEDIA_TYPE }),
      ]);
    }
  });

  test('no body and no Content-Type is a missing body, never a 415 or a 5xx', async () => {
    const t = targets[service]!;
    for (const op of jsonOps(t)) {
      const res = await call(t, op);
      expect([opName(op), res.status < 500 && res.status !== 415]).toEqual([opName(op), true]);
      if (op.method === 'post' && !op.bodyOptional)
        expect([opName(op), res.body.detail]).toEqual([
          opName(op),
          [{ loc: ['body'], msg: expect.any(String), type: 'missing' }],
        ]);
    }
  });

  refusesBadCharactersAndDepth(service);
});

/** U+0000 and lone surrogates in body strings, object keys, query and path; JSON nested too deep. */
function refusesBadCharactersAndDepth(service: keyof typeof MIN_OPERATIONS): void {
  test.each([
    ['U+0000', 'a\u0000b', 'string_nul'],
    ['a lone high surrogate', 'a\ud800', 'string_unicode'],
    ['a lone low surrogate', '\udc00b', 'string_unicode'],
  ])('%s in a body string → 422 at its field, on every JSON route', async (_name, bad, type) => {
    const t = targets[service]!;
    for (const op of jsonOps(t)) {
      const { body, loc } = bodyWith(op, bad);
      const res = await call(t, op).set('content-type', 'application/json').send(JSON.stringify(body));
      expect([opName(op), res.status, res.body.detail]).toEqual([
        opName(op),
        422,
        expect.arrayContaining([{ loc, msg: expect.any(String), type }]),
      ]);
    }
  });

  test('U+0000 or a lone surrogate in an object key → 422 at that key', async () => {
    const t = targets[service]!;
    const op = jsonOps(t).find((o) => o.body?.type === 'object')!;
    for (const [key, type] of [
      ['a\u0000', 'string_nul'],
      ['\ud83d', 'string_unicode'],
    ] as const) {
      const res = await call(t, op)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ [key]: 1 }));
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ loc: ['body', key], msg: expect.any(String), type }]);
    }
  });

  test('U+0000 in a query parameter → 422 string_nul at loc ["query", name], on every operation with a query', async () => {
    const t = targets[service]!;
    for (const op of operationsOf(t.doc).filter((o) => o.query.length > 0 && !o.rawBody)) {
      const name = op.query[0]!.name;
      const res = await call(t, op, `${realPath(t, op)}?${name}=%00`);
      expect([opName(op), res.status, res.body.detail]).toEqual([
        opName(op),
        422,
        expect.arrayContaining([{ loc: ['query', name], msg: expect.any(String), type: 'string_nul' }]),
      ]);
    }
  });

  test.each(['%00', 'a%00b', '%ED%A0%80', '%E0%A4', '%ZZ'])(
    'path id %s → 404 on every operation with a path id',
    async (bad) => {
      const t = targets[service]!;
      for (const op of operationsOf(t.doc).filter((o) => o.pathParams.length > 0)) {
        const path = fillPath(op, Object.fromEntries(op.pathParams.map((p) => [p.name, bad])));
        const res = await (op.secured ? call(t, op, path) : request(t.app)[op.method](path));
        expect([opName(op), res.status, typeof res.body.detail]).toEqual([opName(op), 404, 'string']);
      }
    },
  );

  test(`JSON nested deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) → 422 json_too_deep, on every JSON route`, async () => {
    const t = targets[service]!;
    const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    for (const op of jsonOps(t)) {
      const res = await call(t, op).set('content-type', 'application/json').send(`{"a":${deep}}`);
      expect([opName(op), res.status, res.body.detail?.[0]?.type]).toEqual([opName(op), 422, 'json_too_deep']);
    }
  });
}

describe('the cases the probe found', () => {
  test.each([
    ['scheduler', 'GET', '/agent-webhooks/?agent_id=%00', 422],
    ['scheduler', 'GET', '/schedules/by-agent/%00', 404],
    ['agent', 'GET', '/v3/tools/openapi/%00', 404],
    ['agent', 'GET', '/v3/inference/sessions/%00/messages', 404],
  ] as const)('%s %s %s → %i', async (service, method, path, status) => {
    const t = targets[service]!;
    const res = await request(t.app)[method === 'GET' ? 'get' : 'post'](path).set('x-api-key', t.ctx.apiKey);
    expect(res.status).toBe(status);
    expect(res.body.detail).toEqual(
      status === 404 ? 'Not Found' : [{ loc: ['query', 'agent_id'], msg: expect.any(String), type: 'string_nul' }],
    );
  });

  test('a refused create stores nothing (the check runs before any store)', async () => {
    const t = targets.agent!;
    const before = (await request(t.app).get('/v3/agents/').set('x-api-key', t.ctx.apiKey)).body.total as number;
    await request(t.app)
      .post('/v3/agents/')
      .set('x-api-key', t.ctx.apiKey)
      .send({ name: 'nul \u0000 agent' })
      .expect(422);
    await request(t.app)
      .post('/v3/agents/')
      .set('x-api-key', t.ctx.apiKey)
      .set('content-type', 'text/plain')
      .send('name=x')
      .expect(415);
    const after = (await request(t.app).get('/v3/agents/').set('x-api-key', t.ctx.apiKey)).body.total as number;
    expect(after).toBe(before);
  });

  test('the webhook trigger still reads any Content-Type itself (an unsigned text body → 401, not 415)', async () => {
    const t = targets.scheduler!;
    const id = t.ctx.pathIds(
      {
        method: 'post',
        path: '/webhook-trigger/{webhook_id}',
        pathParams: [],
        query: [],
        bodyOptional: false,
        rawBody: true,
        secured: false,
      },
      'webhook_id',
    )[0]!;
    const res = await request(t.app)
      .post(`/webhook-trigger/${id}`)
      .set('content-type', 'text/plain')
      .send('{"order":1}');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid signature' });
  });

  test.each([
    ['a $-prefixed key in body', { body: { $set: 1 } }],
    ['a dotted key in body', { body: { 'a.b': 1 } }],
    ['nested arrays in body', { body: [[1, 2]] }],
    ['a dotted header name', { headers: { 'X.Custom': 'v' } }],
    ['a dotted query name', { query: { 'filter.name': 'v' } }],
    ['a $-prefixed query name', { query: { $filter: "name eq 'x'" } }],
  ])(
    'an HTTP schedule with %s is stored and read back exactly (free-form JSON is kept as text)',
    async (_name, over) => {
      const t = targets.scheduler!;
      const res = await request(t.app)
        .post('/http-schedules/')
        .set('x-api-key', t.ctx.apiKey)
        .send({ name: 'n', url: 'https://example.com/x', cron_expression: '0 9 * * *', method: 'POST', ...over });
      expect(res.status).toBe(201);
      const read = await request(t.app).get(`/http-schedules/${res.body.id}`).set('x-api-key', t.ctx.apiKey);
      const expected =
        'headers' in over ? { headers: Object.fromEntries(Object.keys(over.headers!).map((k) => [k, '***'])) } : over;
      expect(read.body).toMatchObject(expected);
    },
  );
});
