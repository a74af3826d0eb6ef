import type { Request } from 'express';
import type Joi from 'joi';

import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';
import type { ExecutionKind, ScheduleKind } from '@platform/scheduling';

import { executionList, logsQuery, recentQuery } from '../executions/execution.schemas';
import type { ExecutionService } from '../executions/execution.service';
import { bulkPauseIds } from '../shared/bulk-pause.schemas';
import { apiKeyOf, bulkPauseRequestBody, callbackRotationDoc } from '../shared/routes';
import type { WebhookService } from '../webhooks/webhook.service';
import {
  agentCreateBody,
  agentPath,
  agentSchedules,
  agentUpdateBody,
  httpCreateBody,
  httpSchedule,
  httpScheduleBulkPauseResult,
  httpScheduleList,
  httpUpdateBody,
  LIMITS,
  listQuery,
  schedule,
  scheduleBulkPauseResult,
  scheduleList,
  schedulePath,
  triggerResult,
} from './schedule.schemas';
import type { ScheduleService } from './schedule.service';
import type { ScheduleInput, SchedulePatch } from './schedule.types';

export interface ScheduleRoutesDeps {
  service: ScheduleService;
  executions: ExecutionService;
  webhooks: WebhookService;
}
type Deps = ScheduleRoutesDeps;

/** A kind of schedule: its base path, name, execution kind and shapes. */
interface Kind {
  kind: ScheduleKind;
  base: string;
  noun: string;
  exec: ExecutionKind;
  create: Joi.ObjectSchema<ScheduleInput>;
  update: Joi.ObjectSchema<SchedulePatch>;
  view: Joi.Schema;
  list: Joi.Schema;
  bulk: Joi.Schema;
}

const KINDS: Kind[] = [
  {
    kind: 'agent',
    base: '/schedules',
    noun: 'Schedule',
    exec: 'agent_schedule',
    create: agentCreateBody,
    update: agentUpdateBody,
    view: schedule,
    list: scheduleList,
    bulk: scheduleBulkPauseResult,
  },
  {
    kind: 'http',
    base: '/http-schedules',
    noun: 'HTTP schedule',
    exec: 'http_schedule',
    create: httpCreateBody,
    update: httpUpdateBody,
    view: httpSchedule,
    list: httpScheduleList,
    bulk: httpScheduleBulkPauseResult,
  },
];
/** How many schedules and webhooks the by-agent view lists of each (newest first). */
export const BY_AGENT_LIMIT = 100;

const idOf = (req: Request) => String(req.params.schedule_id);
const executions = { description: 'Executions', body: executionList };

/** `POST` and `GET <base>/`, `POST <base>/pause-bulk/`, `GET <base>/executions/recent` of a kind. */
function collectionRoutes({ kind, base, noun, exec, create, view, list, bulk }: Kind): Route<Deps>[] {
  return [
    route({
      method: 'post',
      path: `${base}/`,
      summary: `Create (${noun})`,
      body: create,
      responses: { '201': { description: 'Created', body: view }, '404': 'Agent not found' },
      handle: ({ service }: Deps, { req, body }) => service.create(principalOf(req), apiKeyOf(req), kind, body),
    }),
    route({
      method: 'get',
      path: `${base}/`,
      summary: 'List yours, newest first',
      query: listQuery,
      responses: { '200': { description: 'Page and total', body: list } },
      handle: ({ service }: Deps, { req, query }) => service.list(principalOf(req), kind, query),
    }),
    route({
      method: 'post',
      path: `${base}/pause-bulk/`,
      summary: `Pause up to ${LIMITS.bulkIds}`,
      body: bulkPauseIds,
      requestBody: bulkPauseRequestBody,
      responses: { '200': { description: 'Counts', body: bulk } },
      handle: ({ service }: Deps, { req, body }) => service.pauseBulk(principalOf(req), kind, body),
    }),
    route({
      method: 'get',
      path: `${base}/executions/recent`,
      summary: 'Runs of your schedules of this kind in the last hours',
      query: recentQuery,
      responses: { '200': executions },
      handle: ({ executions }: Deps, { req, query }) => executions.recent(principalOf(req), exec, query),
    }),
  ];
}

/** The routes of one schedule of a kind: `<base>/{schedule_id}` and below (its replays aside). */
function itemRoutes({ kind, base, noun, update, view }: Kind): Route<Deps>[] {
  const path = `${base}/{schedule_id}`;
  const notFound = { '404': `${noun} not found` };
  const one = (description: string) => ({ '200': { description, body: view }, ...notFound });
  return [
    route({
      method: 'get',
      path,
      summary: 'Read',
      paramsDoc: schedulePath,
      responses: one(noun),
      handle: ({ service }: Deps, { req }) => service.get(principalOf(req), kind, idOf(req)),
    }),
    route({
      method: 'patch',
      path,
      summary: 'Change any field; a cron or zone change applies from now',
      paramsDoc: schedulePath,
      body: update,
      bodyOptional: true,
      responses: one('Updated'),
      handle: ({ service }: Deps, { req, body }) =>
        service.update(principalOf(req), apiKeyOf(req), kind, idOf(req), body),
    }),
    route({
      method: 'delete',
      path,
      summary: 'Delete (its firing stops)',
      paramsDoc: schedulePath,
      responses: { '204': { description: 'Deleted' }, ...notFound },
      handle: async ({ service }: Deps, { req }) => {
        await service.delete(principalOf(req), kind, idOf(req));
      },
    }),
    route({
      method: 'post',
      path: `${path}/pause`,
      summary: 'Pause (idempotent)',
      paramsDoc: schedulePath,
      responses: one('Paused'),
      handle: ({ service }: Deps, { req }) => service.pause(principalOf(req), kind, idOf(req)),
    }),
    route({
      method: 'post',
      path: `${path}/resume`,
      summary: 'Resume (idempotent); fires from the next cron time',
      paramsDoc: schedulePath,
      responses: one('Active'),
      handle: ({ service }: Deps, { req }) => service.resume(principalOf(req), kind, idOf(req)),
    }),
    route({
      method: 'post',
      path: `${path}/trigger`,
      summary: 'Run now, outside the cron (also while paused)',
      paramsDoc: schedulePath,
      responses: { '202': { description: 'Queued', body: triggerResult }, ...notFound },
      handle: ({ service }: Deps, { req }) => service.trigger(principalOf(req), kind, idOf(req)),
    }),
    route({
      method: 'post',
      path: `${path}/regenerate-callback-secret`,
      ...callbackRotationDoc(noun, view),
      paramsDoc: schedulePath,
      handle: ({ service }: Deps, { req }) => service.regenerateCallbackSecret(principalOf(req), kind, idOf(req)),
    }),
    route({
      method: 'get',
      path: `${path}/logs`,
      summary: 'Its executions, newest first (one per fire; attempts counted in it)',
      paramsDoc: schedulePath,
      query: logsQuery,
      responses: { '200': executions, ...notFound },
      handle: ({ service, executions }: Deps, { req, query }) => {
        const owner = principalOf(req);
        const id = idOf(req);
        return executions.of(owner, { schedule_id: id }, query, () => service.assertOwned(owner, kind, id));
      },
    }),
  ];
}

/** Everything that runs one agent: its schedules and its webhooks. */
const byAgent = route({
  method: 'get',
  path: '/schedules/by-agent/{agent_id}',
  summary: `An agent's schedules and webhooks (up to ${BY_AGENT_LIMIT} of each, newest first)`,
  paramsDoc: agentPath,
  responses: { '200': { description: 'Schedules and webhooks', body: agentSchedules } },
  handle: async ({ service, webhooks }: Deps, { req }) => {
    const owner = principalOf(req);
    const agent_id = String(req.params.agent_id);
    const page = { agent_id, skip: 0, limit: BY_AGENT_LIMIT };
    const [schedules, hooks] = await Promise.all([service.list(owner, 'agent', page), webhooks.list(owner, page)]);
    return { agent_id, schedules: schedules.schedules, webhooks: hooks.webhooks };
  },
});

/** /schedules and /http-schedules. Fixed paths come before `/{schedule_id}` ones. */
export const scheduleRoutes: Route<Deps>[] = [
  ...KINDS.flatMap((k) => [...collectionRoutes(k), ...itemRoutes(k)]),
  byAgent,
];
