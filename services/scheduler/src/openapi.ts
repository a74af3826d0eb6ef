/**
 * OpenAPI description of the scheduler service, served at /openapi.json and rendered at /docs. The paths come from
 * the route tables (`*\/*.routes.ts`), the shapes from the joi schemas (`*\/*.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';
import { executionSchema as execution } from '@platform/scheduling';

import { executionList, replayAccepted, replayBody, replayResult } from './executions/execution.schemas';
import { replayRoutes } from './executions/replay.routes';
import { scheduleRoutes } from './schedules/schedule.routes';
import {
  agentCreateBody,
  agentSchedules,
  agentUpdateBody,
  httpCreateBody,
  httpSchedule,
  httpScheduleBulkPauseResult,
  httpScheduleList,
  httpUpdateBody,
  schedule,
  scheduleBulkPauseResult,
  scheduleList,
  triggerResult,
} from './schedules/schedule.schemas';
import { triggerRoutes } from './webhooks/trigger.routes';
import { webhookRoutes } from './webhooks/webhook.routes';
import {
  bulkPauseResult,
  triggerAccepted,
  triggerReplayed,
  webhook,
  createBody as webhookCreateBody,
  webhookList,
  updateBody as webhookUpdateBody,
} from './webhooks/webhook.schemas';

export const openapi = serviceDocument({
  title: 'Scheduler service',
  version: '1.1.0',
  description: 'Webhooks and cron schedules that run agents, and HTTP endpoints on cron.',
  schemas: schemaComponents({
    request: [
      webhookCreateBody,
      webhookUpdateBody,
      agentCreateBody,
      agentUpdateBody,
      httpCreateBody,
      httpUpdateBody,
      replayBody,
    ],
    response: [
      schedule,
      httpSchedule,
      execution,
      executionList,
      webhook,
      webhookList,
      bulkPauseResult,
      scheduleList,
      httpScheduleList,
      scheduleBulkPauseResult,
      httpScheduleBulkPauseResult,
      triggerResult,
      agentSchedules,
      triggerAccepted,
      triggerReplayed,
      replayResult,
      replayAccepted,
    ],
  }),
  routes: [...webhookRoutes, ...replayRoutes, ...triggerRoutes, ...scheduleRoutes],
});
