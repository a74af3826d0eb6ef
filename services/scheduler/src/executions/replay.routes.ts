import { Router, type RequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import { rateLimitPerParam, validate, type RateLimit } from '@platform/http';
import type { ScheduleKind } from '@platform/scheduling';

import { replayBody } from './execution.schemas';
import type { ReplayParent, ReplayService } from './replay.service';

const SCHEDULE_BASES: [string, ScheduleKind][] = [
  ['/schedules', 'agent'],
  ['/http-schedules', 'http'],
];

/**
 * Replays of webhook and schedule runs: `POST <parent>/executions/replay` (bulk, by the list's filters) and
 * `POST <parent>/executions/{execution_id}/replay` (one run). Every replay call of a webhook counts against the
 * webhook's trigger limit (`limit`, the same counter and subject as `POST /webhook-trigger/{id}`; over → 429).
 */
export function createReplayRoutes(replay: ReplayService, limit?: RateLimit): Router {
  const r = Router();
  const perWebhook: RequestHandler<{ webhookId: string }> = limit
    ? rateLimitPerParam(limit, 'webhookId')
    : (_req, _res, next) => next();

  const routes = (base: string, param: string, parentOf: (id: string) => ReplayParent, guard?: RequestHandler) => {
    const pre = guard ? [guard] : [];
    r.post(`${base}/:${param}/executions/replay`, ...pre, async (req, res) => {
      const body = validate(replayBody, req.body, 'body'); // a body is required, `{}` included
      res.json(await replay.bulk(principalOf(req), parentOf(String(req.params[param])), body));
    });
    r.post(`${base}/:${param}/executions/:executionId/replay`, ...pre, async (req, res) => {
      const result = await replay.one(
        principalOf(req),
        parentOf(String(req.params[param])),
        String(req.params.executionId),
      );
      res.status(result.status).json(result.body);
    });
  };

  routes('/agent-webhooks', 'webhookId', (id) => ({ webhook_id: id }), perWebhook as RequestHandler);
  for (const [base, kind] of SCHEDULE_BASES) routes(base, 'id', (id) => ({ schedule_id: id, kind }));
  return r;
}
