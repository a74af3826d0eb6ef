import type { Request } from 'express';
import type Joi from 'joi';

import { principalOf } from '@platform/auth';
import { rateLimitPerParam, route, type RateLimit, type Route } from '@platform/http';
import type { ScheduleKind } from '@platform/scheduling';

import { schedulePath } from '../schedules/schedule.schemas';
import { webhookPath } from '../webhooks/webhook.schemas';
import { replayAccepted, replayBody, replayPath, replayResult } from './execution.schemas';
import type { ReplayParent, ReplayService } from './replay.service';

export interface ReplayRoutesDeps {
  replay: ReplayService;
  /** The webhook trigger limit (the same counter and subject as `POST /webhook-trigger/{id}`); absent: unlimited. */
  limit?: RateLimit;
}
type Deps = ReplayRoutesDeps;

/** A parent whose runs replay: a webhook, or a schedule of one kind. */
interface Parent {
  /** Its path, `{param}` included. */
  path: string;
  param: 'webhook_id' | 'schedule_id';
  params: Joi.ObjectSchema;
  noun: string;
  /** Its 409 when a paused parent replays nothing (webhooks), whose replays also count against its trigger limit. */
  paused?: string;
  parentOf: (id: string) => ReplayParent;
}

const PARENTS: Parent[] = [
  {
    path: '/agent-webhooks/{webhook_id}',
    param: 'webhook_id',
    params: webhookPath,
    noun: 'Webhook',
    paused: 'Webhook is paused',
    parentOf: (id) => ({ webhook_id: id }),
  },
  ...(
    [
      ['/schedules', 'agent', 'Schedule'],
      ['/http-schedules', 'http', 'HTTP schedule'],
    ] as [string, ScheduleKind, string][]
  ).map(([base, kind, noun]): Parent => ({
    path: `${base}/{schedule_id}`,
    param: 'schedule_id',
    params: schedulePath,
    noun,
    parentOf: (id) => ({ schedule_id: id, kind }),
  })),
];

/**
 * `POST <parent>/executions/replay` (bulk, by the list's filters) and `POST <parent>/executions/{execution_id}/replay`
 * (one run) of a parent. Every replay call of a webhook counts against the webhook's trigger limit (over → 429).
 */
function replayRoutesOf(p: Parent): Route<Deps>[] {
  const parentOf = (req: Request) => p.parentOf(String(req.params[p.param]));
  const conflict = p.paused ? `${p.paused}, or the run has not ended` : 'The run has not ended';
  const limited: Record<string, string> = p.paused ? { '429': "Over the webhook's trigger limit" } : {};
  const pausedConflict: Record<string, string> = p.paused ? { '409': p.paused } : {};
  const use = p.paused ? ({ limit }: Deps) => (limit ? [rateLimitPerParam(limit, p.param)] : []) : undefined;
  return [
    route({
      method: 'post',
      path: `${p.path}/executions/replay`,
      summary: 'Replay its ended runs that match the filters (newest first, at most limit), or count them',
      description:
        'Each replay is a new execution with the original input and replay_of naming the original; an original replayed within the last 24 h answers its first replay and runs nothing.',
      paramsDoc: p.params,
      body: replayBody, // a body is required, `{}` included
      responses: {
        '200': { description: 'Matched, and the replays (dry_run: matched only)', body: replayResult },
        ...pausedConflict,
        ...limited,
        '404': `${p.noun} not found`,
      },
      use,
      handle: ({ replay }: Deps, { req, body }) => replay.bulk(principalOf(req), parentOf(req), body),
    }),
    route({
      method: 'post',
      path: `${p.path}/executions/{execution_id}/replay`,
      summary: 'Replay one ended run as a new execution',
      paramsDoc: p.params.concat(replayPath),
      responses: {
        '202': { description: 'Queued: a new execution', body: replayAccepted },
        '200': {
          description: 'Replayed within the last 24 h already: that first replay (nothing runs)',
          body: replayAccepted,
        },
        '409': conflict,
        ...limited,
        '404': `${p.noun} not found, or Execution not found (not one of its runs)`,
      },
      use,
      // Answers itself: 202 for a new replay, 200 for the first replay of a run replayed within 24 h.
      handle: async ({ replay }: Deps, { req, res }) => {
        const result = await replay.one(principalOf(req), parentOf(req), String(req.params.execution_id));
        res.status(result.status).json(result.body);
      },
    }),
  ];
}

/** Replays of webhook and schedule runs. */
export const replayRoutes: Route<Deps>[] = PARENTS.flatMap(replayRoutesOf);
