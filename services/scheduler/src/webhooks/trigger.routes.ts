import express, { Router, type RequestHandler } from 'express';

import { rateLimitPerParam, type RateLimit } from '@platform/http';

import type { TriggerService } from './trigger.service';

/** Largest trigger body (the OpenAPI document: 1 MiB → else 413). */
export const TRIGGER_BODY_LIMIT = 1024 * 1024;

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * POST /webhook-trigger/{id}: no API key; the raw bytes are kept for the signature check. `limit` counts calls per
 * webhook id before the body is read (over → 429 with Retry-After).
 */
export function createTriggerRoutes(trigger: TriggerService, limit?: RateLimit): Router {
  const r = Router();
  const perWebhook: RequestHandler<{ id: string }> = limit
    ? rateLimitPerParam(limit, 'id')
    : (_req, _res, next) => next();
  r.post(
    '/webhook-trigger/:id',
    perWebhook,
    express.raw({ type: () => true, limit: TRIGGER_BODY_LIMIT }),
    async (req, res) => {
      const h = req.headers;
      const result = await trigger({
        webhookId: req.params.id,
        body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        headers: {
          'x-webhook-signature': header(h['x-webhook-signature']),
          'webhook-id': header(h['webhook-id']),
          'webhook-timestamp': header(h['webhook-timestamp']),
          'webhook-signature': header(h['webhook-signature']),
          'idempotency-key': header(h['idempotency-key']),
        },
      });
      res.status(result.status).json(result.body);
    },
  );
  return r;
}
