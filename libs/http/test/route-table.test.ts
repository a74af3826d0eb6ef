/**
 * A route table serves what it declares and documents what it serves: validation of every declared part (422 at the
 * part), the first 2xx status, 204 without a body, handlers that answer themselves, middlewares, aliases; and the
 * OpenAPI operation written from the same declaration; a multipart form's fields validated and documented.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestHandler } from 'express';
import Joi from 'joi';
import request from 'supertest';

import {
  createHttpApp,
  mountRoutes,
  openapiPaths,
  parametersOf,
  route,
  serviceDocument,
  uploadedFile,
  uploadMiddleware,
  type Route,
} from '@platform/http';
import { captureLogger } from '@platform/testing';

interface Store {
  things: Map<string, { id: string; name: string }>;
  seen: string[];
}

const thingPath = Joi.object<{ thing_id: string }>({
  thing_id: Joi.string()
    .pattern(/^t\d+$/)
    .required(),
}).meta({ className: 'ThingPath' });
const thingBody = Joi.object<{ name: string }>({ name: Joi.string().min(1).max(20).required() }).meta({
  className: 'ThingBody',
});
const thing = Joi.object({ id: Joi.string().required(), name: Joi.string().required() }).meta({ className: 'Thing' });
const listQuery = Joi.object<{ limit: number }>({ limit: Joi.number().integer().min(1).max(10).default(5) });
const traceHeaders = Joi.object<{ 'x-trace'?: string }>({ 'x-trace': Joi.string().max(8) });
const touchBody = Joi.object<{ note?: string }>({ note: Joi.string().max(10) });

const routes: Route<Store>[] = [
  route({
    method: 'get',
    path: '/v1/things',
    summary: 'List things',
    operationId: 'listThings',
    query: listQuery,
    headers: traceHeaders,
    responses: { '200': { description: 'Things', body: Joi.array().items(thing) } },
    handle: (store: Store, { query, headers }) => {
      if (headers?.['x-trace']) store.seen.push(headers['x-trace']);
      return [...store.things.values()].slice(0, query?.limit);
    },
  }),
  route({
    method: 'post',
    path: '/v1/things',
    summary: 'Create a thing',
    body: thingBody,
    responses: { '201': { description: 'Created', body: thing }, '409': 'Name taken' },
    handle: (store: Store, { body }) => {
      const made = { id: `t${store.things.size + 1}`, name: body!.name };
      store.things.set(made.id, made);
      return made;
    },
  }),
  route({
    method: 'get',
    path: '/v1/things/{thing_id}',
    summary: 'Read a thing',
    operationId: 'getThing',
    params: thingPath,
    aliases: [
      { path: '/v1/legacy/things/{thing_id}', operationId: 'getThingLegacy', description: 'Same as getThing.' },
    ],
    responses: { '200': { description: 'The thing', body: thing }, '404': 'Thing not found' },
    handle: (store: Store, { params, res }) => {
      const found = store.things.get(params!.thing_id);
      if (!found) res.status(404).json({ detail: 'Thing not found' });
      return found;
    },
  }),
  route({
    method: 'delete',
    path: '/v1/things/{thing_id}',
    summary: 'Delete a thing',
    paramsDoc: thingPath,
    headersDoc: traceHeaders,
    responses: { '204': { description: 'Deleted' } },
    handle: (store: Store, { req }) => {
      store.things.delete(String(req.params.thing_id));
    },
  }),
  route({
    method: 'post',
    path: '/v1/things/{thing_id}/touch',
    summary: 'Touch a thing (body optional)',
    params: thingPath,
    body: touchBody,
    bodyOptional: true,
    use: (store: Store): RequestHandler[] => [
      (_req, _res, next) => {
        store.seen.push('middleware');
        next();
      },
    ],
    responses: { '200': { description: 'The note', body: touchBody }, '503': 'Store away' },
    openapi: { tags: ['things'] },
    handle: (_store: Store, { body }) => body,
  }),
  route({
    method: 'post',
    path: '/v1/quick',
    summary: 'A body checked by hand first',
    body: thingBody,
    // Vouches for a short name only; it marks what it returns so that the test sees which check answered.
    fastBody: (b: unknown) => {
      const name = (b as { name?: unknown } | null)?.name;
      return typeof name === 'string' && name.length === 1 ? { name: `${name}!` } : undefined;
    },
    responses: { '200': { description: 'The body as checked', body: thingBody } },
    handle: (_store: Store, { body }) => body,
  }),
];

const document = serviceDocument({ title: 'Things', description: 'Things.', schemas: {}, routes });

function appOf(store: Store) {
  const logger = captureLogger('things').logger;
  return createHttpApp({ service: 'things', logger, routes: mountRoutes(routes, store), openapi: document }).app;
}

const newStore = (): Store => ({ things: new Map(), seen: [] });

describe('mountRoutes', () => {
  test('the first 2xx status answers; the body is validated (422 at body) and required', async () => {
    const app = appOf(newStore());
    const created = await request(app).post('/v1/things').send({ name: 'a', extra: 1 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 't1', name: 'a' });
    const bad = await request(app).post('/v1/things').send({ name: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'name']);
    const none = await request(app).post('/v1/things').set('content-type', 'application/json');
    expect(none.status).toBe(422);
  });

  test("a route's fastBody answers for what it vouches for; the schema for the rest, errors included", async () => {
    const app = appOf(newStore());
    expect((await request(app).post('/v1/quick').send({ name: 'a' })).body).toEqual({ name: 'a!' });
    expect((await request(app).post('/v1/quick').send({ name: 'ab', x: 1 })).body).toEqual({ name: 'ab' });
    const bad = await request(app).post('/v1/quick').send({ name: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'name']);
  });

  test('a JSON answer to a change has no ETag (nothing could use it); a GET answer has one', async () => {
    const app = appOf(newStore());
    const created = await request(app).post('/v1/things').send({ name: 'é' });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(created.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(created.body))));
    expect(created.headers.etag).toBeUndefined();
    const read = await request(app).get('/v1/things/t1');
    expect(read.body).toEqual({ id: 't1', name: 'é' });
    expect(read.headers.etag).toMatch(/^W\//);
  });

  test('an error answer has no ETag, on a GET too (no conditional request can use one); its body is the JSON', async () => {
    const app = appOf(newStore());
    const answers = [
      await request(app).get('/v1/things/nope'), // 422 from the path's schema
      await request(app).get('/v1/nowhere'), // 404 of no route
      await request(app).post('/v1/things').set('content-type', 'text/plain').send('x'), // 415
    ];
    expect(answers.map((a) => a.status)).toEqual([422, 404, 415]);
    for (const a of answers) {
      expect(a.headers.etag).toBeUndefined();
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(a.headers['content-length']).toBe(String(Buffer.byteLength(a.text)));
      expect(JSON.parse(a.text)).toHaveProperty('detail');
    }
  });

  test('path, query and headers are validated at their parts; the handler gets the converted values', async () => {
    const store = newStore();
    const app = appOf(store);
    await request(app).post('/v1/things').send({ name: 'a' });
    await request(app).post('/v1/things').send({ name: 'b' });
    const page = await request(app).get('/v1/things?limit=1').set('x-trace', 'abc');
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    expect(store.seen).toEqual(['abc']);
    expect((await request(app).get('/v1/things?limit=99')).body.detail[0].loc).toEqual(['query', 'limit']);
    expect((await request(app).get('/v1/things').set('x-trace', 'x'.repeat(9))).body.detail[0].loc).toEqual([
      'header',
      'x-trace',
    ]);
    const badId = await request(app).get('/v1/things/nope');
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0].loc).toEqual(['path', 'thing_id']);
  });

  test('aliases serve the same handler; a handler may answer itself', async () => {
    const app = appOf(newStore());
    await request(app).post('/v1/things').send({ name: 'a' });
    expect((await request(app).get('/v1/legacy/things/t1')).body).toEqual({ id: 't1', name: 'a' });
    const missing = await request(app).get('/v1/things/t9');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Thing not found' });
  });

  test('undefined on a 204 route ends with no body; paramsDoc leaves the path to the handler', async () => {
    const store = newStore();
    const app = appOf(store);
    await request(app).post('/v1/things').send({ name: 'a' });
    const gone = await request(app).delete('/v1/things/t1');
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect(store.things.size).toBe(0);
    expect((await request(app).delete('/v1/things/anything')).status).toBe(204);
    // headersDoc documents a header without checking it: the handler reads it as given.
    expect((await request(app).delete('/v1/things/t2').set('x-trace', 'x'.repeat(20))).status).toBe(204);
  });

  test("the route's middlewares run first; an optional body may be left out", async () => {
    const store = newStore();
    const app = appOf(store);
    const empty = await request(app).post('/v1/things/t1/touch');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({});
    expect((await request(app).post('/v1/things/t1/touch').send({ note: 'hi' })).body).toEqual({ note: 'hi' });
    expect(
      (
        await request(app)
          .post('/v1/things/t1/touch')
          .send({ note: 'x'.repeat(11) })
      ).status,
    ).toBe(422);
    expect(store.seen).toEqual(['middleware', 'middleware', 'middleware']);
  });
});

describe('openapiPaths', () => {
  const paths = openapiPaths(routes);

  test('each route and alias is one operation, in declaration order', () => {
    expect(Object.keys(paths)).toEqual([
      '/v1/things',
      '/v1/things/{thing_id}',
      '/v1/legacy/things/{thing_id}',
      '/v1/things/{thing_id}/touch',
      '/v1/quick',
    ]);
    expect(Object.keys(paths['/v1/things']!)).toEqual(['get', 'post']);
    expect(paths['/v1/legacy/things/{thing_id}']!.get).toMatchObject({
      operationId: 'getThingLegacy',
      description: 'Same as getThing.',
    });
  });

  test('parameters come from the path, query and header schemas', () => {
    expect(paths['/v1/things']!.get!.parameters).toEqual([
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10, default: 5 } },
      { name: 'x-trace', in: 'header', schema: { type: 'string', maxLength: 8 } },
    ]);
    expect(paths['/v1/things/{thing_id}']!.delete!.parameters).toEqual([
      { name: 'thing_id', in: 'path', required: true, schema: { type: 'string', pattern: '^t\\d+$' } },
      { name: 'x-trace', in: 'header', schema: { type: 'string', maxLength: 8 } },
    ]);
  });

  test('bodies: named schemas by $ref, required unless optional; errors in the Error shape; standard answers', () => {
    const post = paths['/v1/things']!.post!;
    expect(post.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingBody' } } },
    });
    const responses = post.responses as Record<string, { description: string; content?: unknown }>;
    expect(Object.keys(responses)).toEqual(['201', '403', '409', '422', '503']);
    expect(responses['201']!.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
    });
    expect(responses['409']).toEqual({
      description: 'Name taken',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    const touch = paths['/v1/things/{thing_id}/touch']!.post!;
    expect((touch.requestBody as { required: boolean }).required).toBe(false);
    expect((touch.responses as Record<string, { description: string }>)['503']!.description).toBe('Store away');
    expect(touch.tags).toEqual(['things']);
  });

  test("a key's parameter meta adds to its parameter and its schema, not to the schema's JSON", () => {
    const query = Joi.object({
      tag: Joi.array()
        .items(Joi.string())
        .description('Any of these tags')
        .meta({ parameter: { style: 'form', explode: true } }),
      since: Joi.string()
        .isoDate()
        .description('At or after')
        .meta({ parameter: { schema: { description: 'inclusive' } } }),
    });
    expect(parametersOf(query, 'query')).toEqual([
      {
        name: 'tag',
        in: 'query',
        description: 'Any of these tags',
        schema: { type: 'array', items: { type: 'string' } },
        style: 'form',
        explode: true,
      },
      {
        name: 'since',
        in: 'query',
        description: 'At or after',
        schema: { type: 'string', format: 'date-time', description: 'inclusive' },
      },
    ]);
  });

  test('an operation declared twice is refused', () => {
    expect(() => openapiPaths([routes[0]!, { ...routes[0]! }])).toThrow('GET /v1/things is declared twice');
  });

  test('serviceDocument puts the tables under API-key security with the error shapes', () => {
    const doc = serviceDocument({ title: 'Things', description: 'Things.', schemas: {}, routes });
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(doc.components.schemas)).toEqual(['Error', 'ValidationError']);
    expect(doc.paths).toEqual(paths);
  });
});

describe('a multipart route', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'route-table-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const uploadForm = Joi.object<{ size?: number }>({ size: Joi.number().integer().min(1).max(100) });
  const upload = route({
    method: 'post',
    path: '/v1/uploads',
    summary: 'Upload a file',
    body: uploadForm,
    multipart: { file: 'file' },
    responses: { '201': { description: 'Read', body: Joi.object() } },
    use: (d: { dir: string }) => [uploadMiddleware({ dir: d.dir, maxFileBytes: 1024 })],
    handle: (_d: { dir: string }, { body, req }) => ({ form: body, bytes: uploadedFile(req).size }),
  });

  const appOfUploads = () =>
    createHttpApp({
      service: 'uploads',
      logger: captureLogger('uploads').logger,
      routes: mountRoutes([], {}),
      rawRoutes: [mountRoutes([upload], { dir })],
    }).app;

  test('its form fields are validated as strings that convert, unknown ones dropped, errors under body', async () => {
    const app = appOfUploads();
    const ok = await request(app)
      .post('/v1/uploads')
      .field('size', '12')
      .field('other', 'x')
      .attach('file', Buffer.from('hello'), 'a.txt');
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ form: { size: 12 }, bytes: 5 });
    const bad = await request(app).post('/v1/uploads').field('size', 'many').attach('file', Buffer.from('x'), 'a.txt');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'size']);
  });

  test('its document body is the form with its file part', () => {
    expect(openapiPaths([upload])['/v1/uploads']!.post!.requestBody).toEqual({
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', format: 'binary' },
              size: { type: 'integer', minimum: 1, maximum: 100 },
            },
          },
        },
      },
    });
  });
});
