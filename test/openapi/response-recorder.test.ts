/** The recorder of test/openapi/response-recorder.ts: responses of supertest requests are checked against the app's document. */
import type { Router } from 'express';
import request from 'supertest';

import { createHttpApp } from '@platform/http';
import { captureLogger } from '@platform/testing';

import { checkRecorded, recordedCount } from './response-recorder';

const doc = {
  openapi: '3.1.0',
  info: { title: 'planted', version: '1' },
  components: { schemas: { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } },
  paths: {
    '/v1/things/{thing_id}': {
      get: {
        responses: {
          '200': {
            description: 'A thing',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
        },
      },
    },
  },
};

/** Answers GET /v1/things/good with a documented body and GET /v1/things/bad with `id` as a number. */
const routes = ((req, res, next) => {
  if (req.method !== 'GET' || !req.path.startsWith('/v1/things/')) return next();
  res.json({ id: req.path.endsWith('/bad') ? 1 : 'good' });
}) as Router;
const app = createHttpApp({ service: 'planted', logger: captureLogger().logger, routes, openapi: doc }).app;

test('a response that matches its documented schema passes; unknown paths and ops endpoints are left alone', async () => {
  await request(app).get('/v1/things/good').expect(200);
  await request(app).get('/healthz').expect(200);
  await request(app).get('/v2/elsewhere').expect(404);
  expect(recordedCount()).toBe(3);
  expect(await checkRecorded()).toEqual([]);
  expect(recordedCount()).toBe(0);
});

test('a response that breaks its documented schema is reported with its operation and status', async () => {
  await request(app).get('/v1/things/bad').expect(200);
  expect(await checkRecorded()).toEqual([
    expect.stringMatching(
      /^GET \/v1\/things\/\{thing_id\} → 200: body does not match the schema: body\/id must be string/,
    ),
  ]);
});
