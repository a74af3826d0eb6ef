import { Router, type Request } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';
import type { ExecutionKind, ScheduleKind } from '@platform/scheduling';

import { logsQuery, recentQuery } from '../executions/execution.schemas';
import type { ExecutionService } from '../executions/execution.service';
import { bulkPauseIds } from '../shared/bulk-pause.schemas';
import type { WebhookService } from '../webhooks/webhook.service';
import { agentCreateBody, agentUpdateBody, httpCreateBody, httpUpdateBody, listQuery } from './schedule.schemas';
import type { ScheduleService } from './schedule.service';

export interface ScheduleRoutesDeps {
  service: ScheduleService;
  executions: ExecutionService;
  webhooks: WebhookService;
}

const apiKeyOf = (req: Request) => req.get('x-api-key') ?? '';
const KINDS = [
  {
    kind: 'agent' as ScheduleKind,
    base: '/schedules',
    exec: 'agent_schedule' as ExecutionKind,
    create: agentCreateBody,
    update: agentUpdateBody,
  },
  {
    kind: 'http' as ScheduleKind,
    base: '/http-schedules',
    exec: 'http_schedule' as ExecutionKind,
    create: httpCreateBody,
    update: httpUpdateBody,
  },
];
/** How many schedules and webhooks the by-agent view lists of each (newest first). */
export const BY_AGENT_LIMIT = 100;

/** /schedules and /http-schedules. Fixed paths are registered before `/:id` ones. */
export function createScheduleRoutes(deps: ScheduleRoutesDeps): Router {
  const { service } = deps;
  const r = Router();

  for (const { kind, base, exec, create, update } of KINDS) {
    r.post(base, async (req, res) => {
      res
        .status(201)
        .json(await service.create(principalOf(req), apiKeyOf(req), kind, validate(create, req.body, 'body')));
    });
    r.get(base, async (req, res) => {
      res.json(await service.list(principalOf(req), kind, validate(listQuery, req.query, 'query')));
    });
    r.post(`${base}/pause-bulk`, async (req, res) => {
      res.json(await service.pauseBulk(principalOf(req), kind, validate(bulkPauseIds, req.body, 'body')));
    });
    r.get(`${base}/executions/recent`, async (req, res) => {
      res.json(await deps.executions.recent(principalOf(req), exec, validate(recentQuery, req.query, 'query')));
    });
    r.get(`${base}/:id`, async (req, res) => {
      res.json(await service.get(principalOf(req), kind, req.params.id));
    });
    r.patch(`${base}/:id`, async (req, res) => {
      const patch = validate(update, req.body ?? {}, 'body');
      res.json(await service.update(principalOf(req), apiKeyOf(req), kind, req.params.id, patch));
    });
    r.delete(`${base}/:id`, async (req, res) => {
      await service.delete(principalOf(req), kind, req.params.id);
      res.status(204).end();
    });
    r.post(`${base}/:id/pause`, async (req, res) => {
      res.json(await service.pause(principalOf(req), kind, req.params.id));
    });
    r.post(`${base}/:id/resume`, async (req, res) => {
      res.json(await service.resume(principalOf(req), kind, req.params.id));
    });
    r.post(`${base}/:id/trigger`, async (req, res) => {
      res.status(202).json(await service.trigger(principalOf(req), kind, req.params.id));
    });
    r.post(`${base}/:id/regenerate-callback-secret`, async (req, res) => {
      res.json(await service.regenerateCallbackSecret(principalOf(req), kind, req.params.id));
    });
    r.get(`${base}/:id/logs`, async (req, res) => {
      const owner = principalOf(req);
      const id = req.params.id;
      const q = validate(logsQuery, req.query, 'query');
      res.json(await deps.executions.of(owner, { schedule_id: id }, q, () => service.assertOwned(owner, kind, id)));
    });
  }

  // Everything that runs one agent: its schedules and its webhooks.
  r.get('/schedules/by-agent/:agentId', async (req, res) => {
    const owner = principalOf(req);
    const agent_id = req.params.agentId;
    const page = { agent_id, skip: 0, limit: BY_AGENT_LIMIT };
    const [schedules, webhooks] = await Promise.all([
      service.list(owner, 'agent', page),
      deps.webhooks.list(owner, page),
    ]);
    res.json({ agent_id, schedules: schedules.schedules, webhooks: webhooks.webhooks });
  });
  return r;
}
