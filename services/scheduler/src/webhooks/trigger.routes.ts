import express, { Router } from 'express';
import type { TriggerService } from './trigger.service';

/** Largest trigger body (contract: 1 MiB → else 413). */
export const TRIGGER_BODY_LIMIT = 1024 * 1024;

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** POST /webhook-trigger/{id}: no API key; the raw bytes are kept for the signature check. */
export function createTriggerRoutes(trigger: TriggerService): Router {
  const r = Router();
  r.post('/webhook-trigger/:id', express.raw({ type: () => true, limit: TRIGGER_BODY_LIMIT }), async (req, res) => {
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
  });
  return r;
}
