/**
 * What the createHttpApp suites share: an app of test routes that exercise every error path the HTTP layer maps, and
 * helpers to read its captured log lines.
 */
import express, { type Router } from 'express';
import Joi from 'joi';

import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  ValidationError,
} from '@platform/errors';
import { createHttpApp, pageSchema, validate, type ReadinessCheck } from '@platform/http';
import { captureLogger } from '@platform/testing';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const thingBody = Joi.object({
  name: Joi.string().min(1).max(20).required(),
  count: Joi.number().integer().min(0),
  kind: Joi.string().valid('a', 'b'),
});

/** Test routes exercising every error path the HTTP layer maps. */
function testRoutes(logger: ReturnType<typeof captureLogger>['logger']): Router {
  const r = express.Router();
  r.get('/things', (req, res) => {
    const page = validate(pageSchema, req.query, 'query');
    res.json({ things: [], ...page });
  });
  r.post('/things', (req, res) => {
    const body = validate(thingBody, req.body, 'body');
    res.status(201).json(body);
  });
  r.get('/things/:id', (req, res) => {
    logger.info('inside route', { id: req.params.id });
    res.json({ id: req.params.id });
  });
  r.get('/boom/not-found', () => {
    throw new NotFoundError('Widget');
  });
  r.get('/boom/conflict', () => {
    throw new ConflictError('Widget is paused');
  });
  r.get('/boom/forbidden', () => {
    throw new ForbiddenError();
  });
  r.get('/boom/unavailable', () => {
    throw new ServiceUnavailableError(new Error('redis down'));
  });
  r.get('/boom/plain', () => {
    throw new Error('secret internals: /etc/passwd at line 42');
  });
  r.get('/boom/async-plain', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    throw new TypeError('cannot read properties of undefined');
  });
  r.get('/boom/mongo', async () => {
    const err = new Error('Server selection timed out after 3000 ms');
    err.name = 'MongoServerSelectionError';
    throw err;
  });
  r.get('/boom/refused', async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:27017');
  });
  r.get('/boom/rate', () => {
    throw new RateLimitedError(2.2);
  });
  r.get('/boom/validation', () => {
    throw ValidationError.field(['path', 'id'], 'Bad id', 'value_error');
  });
  r.post('/echo', (req, res) => {
    res.json({ received: req.body as unknown });
  });
  return r;
}

/** The app on the test routes (and a raw route, /raw, mounted before the JSON parser), its registry and log lines. */
export function build(
  opts: {
    readiness?: Record<string, ReadinessCheck>;
    openapi?: Record<string, unknown>;
    jsonLimit?: string | number;
  } = {},
) {
  const cap = captureLogger('http-test');
  const raw = express.Router();
  raw.post('/raw', express.text({ type: '*/*' }), (req, res) => {
    res.json({ raw: req.body as string });
  });
  const { app, registry } = createHttpApp({
    service: 'http-test',
    logger: cap.logger,
    routes: testRoutes(cap.logger),
    rawRoutes: [raw],
    ...opts,
  });
  return { app, registry, lines: cap.lines };
}

/** The captured log lines as objects. */
export const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
/** Lets the logger write what the last request logged. */
export const flush = () => new Promise((resolve) => setImmediate(resolve));
