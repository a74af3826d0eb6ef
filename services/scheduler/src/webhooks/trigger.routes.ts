import express from 'express';

import { jsonContent, rateLimitPerParam, route, type RateLimit, type Route } from '@platform/http';

import type { TriggerService } from './trigger.service';
import { triggerAccepted, triggerHeaders, triggerReplayed, webhookPath } from './webhook.schemas';

/** Largest trigger body (the OpenAPI document: 1 MiB → else 413). */
export const TRIGGER_BODY_LIMIT = 1024 * 1024;

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export interface TriggerRoutesDeps {
  trigger: TriggerService;
  /** Calls per webhook id, counted before the body is read (over → 429 with Retry-After); absent: unlimited. */
  limit?: RateLimit;
}
type Deps = TriggerRoutesDeps;

/**
 * POST /webhook-trigger/{webhook_id}: no API key; the raw bytes are kept for the signature check (mounted before the
 * JSON parser). A malformed id is simply not found (404); the headers are read as given.
 */
export const triggerRoutes: Route<Deps>[] = [
  route({
    method: 'post',
    path: '/webhook-trigger/{webhook_id}',
    summary: "Run the webhook's agent with the signed body (no API key)",
    description:
      'The raw bytes are read whatever the Content-Type (senders label bodies in many ways) and must be JSON of at most 1 MiB. ' +
      'Signed with X-Webhook-Signature: sha256=<hex HMAC of the body keyed with secret_key>, or the Standard Webhooks headers.',
    paramsDoc: webhookPath,
    headersDoc: triggerHeaders,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: {} }, '*/*': { schema: { type: 'string', format: 'binary' } } },
    },
    responses: {
      '200': {
        description: 'Already accepted under the same Idempotency-Key or webhook-id (nothing runs)',
        body: triggerReplayed,
      },
      '202': { description: 'Accepted: the run is stored and queued', body: triggerAccepted },
      '401': 'Invalid signature',
      '404': 'Webhook not found',
      '409': 'Webhook is paused',
      '413': 'Body over 1 MiB',
      '422': {
        description: 'Body is not JSON',
        content: jsonContent({ $ref: '#/components/schemas/ValidationError' }).content,
      },
      '503': 'MongoDB unreachable',
    },
    standardResponses: false,
    openapi: { security: [] },
    use: ({ limit }: Deps) => [
      ...(limit ? [rateLimitPerParam(limit, 'webhook_id')] : []),
      express.raw({ type: () => true, limit: TRIGGER_BODY_LIMIT }),
    ],
    // Answers itself: 202 for a queued run, 200 for one an idempotency key names.
    handle: async ({ trigger }: Deps, { req, res }) => {
      const h = req.headers;
      const result = await trigger({
        webhookId: String(req.params.webhook_id),
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
  }),
];
