import { Router, type Request } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { logsQuery, recentQuery } from '../executions/execution.schemas';
import type { ExecutionService } from '../executions/execution.service';
import { bulkPauseIds } from '../shared/bulk-pause.schemas';
import { createBody, listQuery, regenerateQuery, updateBody } from './webhook.schemas';
import type { WebhookService } from './webhook.service';

const BASE = '/agent-webhooks';
/** The caller's key, present behind the auth middleware; forwarded to the agent service. */
const apiKeyOf = (req: Request) => req.get('x-api-key') ?? '';

/**
 * /agent-webhooks routes, their executions included. Handlers validate, call a service, respond. Fixed paths
 * (`pause-bulk`, `executions/recent`) are registered before `/:webhookId` in this one router, so no id can take them
 * whatever order the app mounts its routers in.
 */
export function createWebhookRoutes(service: WebhookService, executions: ExecutionService): Router {
  const r = Router();

  r.post(BASE, async (req, res) => {
    const input = validate(createBody, req.body, 'body');
    res.status(201).json(await service.create(principalOf(req), apiKeyOf(req), input));
  });

  r.get(BASE, async (req, res) => {
    res.json(await service.list(principalOf(req), validate(listQuery, req.query, 'query')));
  });

  // Before the /:webhookId routes, so "pause-bulk" is never taken for an id.
  r.post(`${BASE}/pause-bulk`, async (req, res) => {
    const ids = validate(bulkPauseIds, req.body, 'body');
    res.json(await service.pauseBulk(principalOf(req), ids));
  });

  r.get(`${BASE}/executions/recent`, async (req, res) => {
    res.json(await executions.recent(principalOf(req), 'webhook', validate(recentQuery, req.query, 'query')));
  });

  r.get(`${BASE}/:webhookId/executions`, async (req, res) => {
    const owner = principalOf(req);
    const id = req.params.webhookId;
    res.json(
      await executions.of(owner, { webhook_id: id }, validate(logsQuery, req.query, 'query'), () =>
        service.get(owner, id),
      ),
    );
  });

  r.get(`${BASE}/:webhookId`, async (req, res) => {
    res.json(await service.get(principalOf(req), req.params.webhookId));
  });

  r.patch(`${BASE}/:webhookId`, async (req, res) => {
    const input = validate(updateBody, req.body ?? {}, 'body');
    res.json(await service.update(principalOf(req), req.params.webhookId, input));
  });

  r.delete(`${BASE}/:webhookId`, async (req, res) => {
    await service.delete(principalOf(req), req.params.webhookId);
    res.status(204).end();
  });

  r.post(`${BASE}/:webhookId/pause`, async (req, res) => {
    res.json(await service.pause(principalOf(req), req.params.webhookId));
  });

  r.post(`${BASE}/:webhookId/resume`, async (req, res) => {
    res.json(await service.resume(principalOf(req), req.params.webhookId));
  });

  r.post(`${BASE}/:webhookId/regenerate-secret`, async (req, res) => {
    const { grace_seconds } = validate(regenerateQuery, req.query, 'query');
    res.json(await service.regenerateSecret(principalOf(req), req.params.webhookId, grace_seconds));
  });

  r.post(`${BASE}/:webhookId/regenerate-callback-secret`, async (req, res) => {
    res.json(await service.regenerateCallbackSecret(principalOf(req), req.params.webhookId));
  });

  return r;
}
