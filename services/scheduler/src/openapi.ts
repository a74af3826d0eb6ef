/**
 * OpenAPI description of the scheduler service, served at /openapi.json and rendered at /docs. The shapes come from
 * the joi schemas (`*\/*.schemas.ts`); only route-level facts (summaries, status codes, parameter serialization) are
 * written here.
 */
import type Joi from 'joi';

import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  jsonSchemaOf,
  notFoundResponse,
  parametersOf,
  refTo,
  withStandardResponses as responses,
  schemaComponents,
} from '@platform/http';
import { executionSchema as execution } from '@platform/scheduling';

import {
  executionList,
  logsQuery as executionLogsQuery,
  recentQuery as executionRecentQuery,
  replayAccepted,
  replayBody,
  replayPath,
  replayResult,
} from './executions/execution.schemas';
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
  schedule,
  scheduleBulkPauseResult,
  scheduleList,
  listQuery as scheduleListQuery,
  schedulePath,
  triggerResult,
} from './schedules/schedule.schemas';
import { bulkPauseIds } from './shared/bulk-pause.schemas';
import {
  bulkPauseResult,
  regenerateQuery,
  triggerAccepted,
  triggerHeaders,
  triggerReplayed,
  webhook,
  createBody as webhookCreateBody,
  webhookList,
  listQuery as webhookListQuery,
  webhookPath,
  updateBody as webhookUpdateBody,
} from './webhooks/webhook.schemas';

type Json = Record<string, unknown>;

const requestSchemas = [
  webhookCreateBody,
  webhookUpdateBody,
  agentCreateBody,
  agentUpdateBody,
  httpCreateBody,
  httpUpdateBody,
  replayBody,
];
const responseSchemas = [
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
];

const components = () => schemaComponents({ request: requestSchemas, response: responseSchemas });

/** Query parameters; custom-parsed keys document what they accept through their `openapi` alterations. */
const queryOf = (schema: Joi.ObjectSchema) => parametersOf(schema, 'query');

/** The execution filters in the order the document has always listed them, `status` a repeatable parameter. */
function executionParameters(schema: Joi.ObjectSchema, first: string[]): Json[] {
  const byName = new Map(queryOf(schema).map((p) => [p.name as string, p]));
  const order = [...first, 'status', 'success', 'from', 'to', 'skip', 'limit'];
  const bounds: Record<string, string> = { from: 'inclusive', to: 'exclusive' };
  return order.map((name) => {
    const p = byName.get(name)!;
    if (name === 'status') return { ...p, style: 'form', explode: true };
    if (bounds[name]) return { ...p, schema: { ...(p.schema as Json), description: bounds[name] } };
    return p;
  });
}
const executionListParameters = executionParameters(executionLogsQuery, []);
const recentExecutionParameters = executionParameters(executionRecentQuery, ['agent_id', 'hours']);

const body = (schema: Joi.Schema) => json(refTo(schema));
const bulkBody = json(jsonSchemaOf(bulkPauseIds, 'request'));
const error = json({ $ref: '#/components/schemas/Error' });
const executions = json(refTo(executionList));

const webhookId = parametersOf(webhookPath, 'path');
const executionId = parametersOf(replayPath, 'path');

/**
 * `POST <parent>/executions/replay` and `POST <parent>/executions/{execution_id}/replay` of a webhook or schedule
 * (`parent` its path parameters, `noun` its name, `paused` its 409 when a paused parent replays nothing: webhooks).
 */
function replayPaths(path: string, parent: Json[], noun: string, paused?: string) {
  const conflict = paused ? `${paused}, or the run has not ended` : 'The run has not ended';
  const pausedConflict: Record<string, object> = paused ? { '409': { description: paused, ...error } } : {};
  // A webhook's replay calls count against its trigger limit.
  const limited: Record<string, object> = paused
    ? { '429': { description: "Over the webhook's trigger limit", ...error } }
    : {};
  return {
    [`${path}/executions/replay`]: {
      post: {
        summary: 'Replay its ended runs that match the filters (newest first, at most limit), or count them',
        description:
          'Each replay is a new execution with the original input and replay_of naming the original; an original replayed within the last 24 h answers its first replay and runs nothing.',
        parameters: parent,
        requestBody: body(replayBody),
        responses: responses({
          '200': { description: 'Matched, and the replays (dry_run: matched only)', ...json(refTo(replayResult)) },
          ...pausedConflict,
          ...limited,
          ...notFoundResponse(`${noun} not found`),
        }),
      },
    },
    [`${path}/executions/{execution_id}/replay`]: {
      post: {
        summary: 'Replay one ended run as a new execution',
        parameters: [...parent, ...executionId],
        responses: responses({
          '202': { description: 'Queued: a new execution', ...json(refTo(replayAccepted)) },
          '200': {
            description: 'Replayed within the last 24 h already: that first replay (nothing runs)',
            ...json(refTo(replayAccepted)),
          },
          '409': { description: conflict, ...error },
          ...limited,
          ...notFoundResponse(`${noun} not found, or Execution not found (not one of its runs)`),
        }),
      },
    },
  };
}
/**
 * `POST <path>/regenerate-callback-secret` of a webhook or schedule (`view` its object): no body; 200 with the new
 * `callback_secret` (shown in this answer only), 409 when it has no `callback_url`.
 */
function callbackRotationPath(path: string, parameters: Json[], noun: string, view: Joi.Schema) {
  return {
    [`${path}/regenerate-callback-secret`]: {
      post: {
        summary: 'New callback signing secret (callback_secret), shown in this answer only',
        description:
          'Takes no body. Runs created from now on are signed with the new secret; runs created before keep the secret they were created with.',
        parameters,
        responses: responses({
          '200': { description: `${noun} with its new callback_secret`, ...json(refTo(view)) },
          '409': { description: `${noun} has no callback_url`, ...error },
          ...notFoundResponse(`${noun} not found`),
        }),
      },
    },
  };
}
const webhookNotFound = notFoundResponse('Webhook not found');
const oneWebhook = (description: string) =>
  responses({ '200': { description, ...json(refTo(webhook)) }, ...webhookNotFound });

/** The operations of /schedules or /http-schedules. */
function schedulePaths(
  base: string,
  noun: string,
  shapes: Record<'view' | 'create' | 'update' | 'list' | 'bulk', Joi.Schema>,
) {
  const id = parametersOf(schedulePath, 'path');
  const notFound = notFoundResponse(`${noun} not found`);
  const one = (description: string) => responses({ '200': { description, ...json(refTo(shapes.view)) }, ...notFound });
  return {
    [`${base}/`]: {
      post: {
        summary: `Create (${noun})`,
        requestBody: body(shapes.create),
        responses: responses({
          '201': { description: 'Created', ...json(refTo(shapes.view)) },
          ...notFoundResponse('Agent not found'),
        }),
      },
      get: {
        summary: 'List yours, newest first',
        parameters: parametersOf(scheduleListQuery, 'query'),
        responses: responses({ '200': { description: 'Page and total', ...json(refTo(shapes.list)) } }),
      },
    },
    [`${base}/pause-bulk/`]: {
      post: {
        summary: `Pause up to ${LIMITS.bulkIds}`,
        requestBody: bulkBody,
        responses: responses({ '200': { description: 'Counts', ...json(refTo(shapes.bulk)) } }),
      },
    },
    [`${base}/executions/recent`]: {
      get: {
        summary: 'Runs of your schedules of this kind in the last hours',
        parameters: recentExecutionParameters,
        responses: responses({ '200': { description: 'Executions', ...executions } }),
      },
    },
    [`${base}/{schedule_id}`]: {
      get: { summary: 'Read', parameters: id, responses: one(noun) },
      patch: {
        summary: 'Change any field; a cron or zone change applies from now',
        parameters: id,
        requestBody: body(shapes.update),
        responses: one('Updated'),
      },
      delete: {
        summary: 'Delete (its firing stops)',
        parameters: id,
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    [`${base}/{schedule_id}/pause`]: {
      post: { summary: 'Pause (idempotent)', parameters: id, responses: one('Paused') },
    },
    [`${base}/{schedule_id}/resume`]: {
      post: { summary: 'Resume (idempotent); fires from the next cron time', parameters: id, responses: one('Active') },
    },
    [`${base}/{schedule_id}/trigger`]: {
      post: {
        summary: 'Run now, outside the cron (also while paused)',
        parameters: id,
        responses: responses({ '202': { description: 'Queued', ...json(refTo(triggerResult)) }, ...notFound }),
      },
    },
    [`${base}/{schedule_id}/logs`]: {
      get: {
        summary: 'Its executions, newest first (one per fire; attempts counted in it)',
        parameters: [...id, ...executionListParameters],
        responses: responses({ '200': { description: 'Executions', ...executions }, ...notFound }),
      },
    },
    ...replayPaths(`${base}/{schedule_id}`, id, noun),
    ...callbackRotationPath(`${base}/{schedule_id}`, id, noun, shapes.view),
  };
}

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Scheduler service',
    version: '1.1.0',
    description: 'Webhooks and cron schedules that run agents, and HTTP endpoints on cron.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: { ...errorSchemas, ...components() },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/agent-webhooks/': {
      post: {
        summary: 'Create a webhook for one of your agents',
        requestBody: body(webhookCreateBody),
        responses: responses({
          '201': { description: 'Created', ...json(refTo(webhook)) },
          ...notFoundResponse('Agent not found'),
        }),
      },
      get: {
        summary: 'List your webhooks, newest first',
        parameters: parametersOf(webhookListQuery, 'query'),
        responses: responses({ '200': { description: 'Webhooks', ...json(refTo(webhookList)) } }),
      },
    },
    '/agent-webhooks/pause-bulk/': {
      post: {
        summary: 'Pause up to 100 webhooks',
        requestBody: bulkBody,
        responses: responses({
          '200': { description: 'Counts and the webhooks paused', ...json(refTo(bulkPauseResult)) },
        }),
      },
    },
    '/agent-webhooks/{webhook_id}': {
      get: { summary: 'Get a webhook', parameters: webhookId, responses: oneWebhook('Webhook') },
      patch: {
        summary: 'Change the description, the concurrency limit (max_concurrency) or the callback_url',
        parameters: webhookId,
        requestBody: body(webhookUpdateBody),
        responses: oneWebhook('Updated'),
      },
      delete: {
        summary: 'Delete a webhook',
        parameters: webhookId,
        responses: responses({ '204': { description: 'Deleted' }, ...webhookNotFound }),
      },
    },
    '/agent-webhooks/{webhook_id}/pause': {
      post: { summary: 'Pause (idempotent)', parameters: webhookId, responses: oneWebhook('Paused') },
    },
    '/agent-webhooks/{webhook_id}/resume': {
      post: { summary: 'Resume (idempotent)', parameters: webhookId, responses: oneWebhook('Active') },
    },
    '/agent-webhooks/{webhook_id}/regenerate-secret': {
      post: {
        summary: 'New signing secret; the old one keeps verifying for grace_seconds',
        parameters: [...webhookId, ...parametersOf(regenerateQuery, 'query')],
        responses: oneWebhook('Webhook with its new secret'),
      },
    },
    '/agent-webhooks/{webhook_id}/executions': {
      get: {
        summary: "The webhook's runs, newest first",
        parameters: [...webhookId, ...executionListParameters],
        responses: responses({ '200': { description: 'Executions', ...executions }, ...webhookNotFound }),
      },
    },
    ...callbackRotationPath('/agent-webhooks/{webhook_id}', webhookId, 'Webhook', webhook),
    ...replayPaths('/agent-webhooks/{webhook_id}', webhookId, 'Webhook', 'Webhook is paused'),
    '/agent-webhooks/executions/recent': {
      get: {
        summary: 'Runs of your webhooks in the last hours, newest first',
        parameters: recentExecutionParameters,
        responses: responses({ '200': { description: 'Executions', ...executions } }),
      },
    },
    '/webhook-trigger/{webhook_id}': {
      post: {
        summary: "Run the webhook's agent with the signed body (no API key)",
        description:
          'The raw bytes are read whatever the Content-Type (senders label bodies in many ways) and must be JSON of at most 1 MiB. ' +
          'Signed with X-Webhook-Signature: sha256=<hex HMAC of the body keyed with secret_key>, or the Standard Webhooks headers.',
        security: [],
        parameters: [...webhookId, ...parametersOf(triggerHeaders, 'header')],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: {} }, '*/*': { schema: { type: 'string', format: 'binary' } } },
        },
        responses: {
          '202': { description: 'Accepted: the run is stored and queued', ...json(refTo(triggerAccepted)) },
          '200': {
            description: 'Already accepted under the same Idempotency-Key or webhook-id (nothing runs)',
            ...json(refTo(triggerReplayed)),
          },
          '401': { description: 'Invalid signature', ...error },
          '409': { description: 'Webhook is paused', ...error },
          '413': { description: 'Body over 1 MiB', ...error },
          '422': { description: 'Body is not JSON', ...json({ $ref: '#/components/schemas/ValidationError' }) },
          '503': { description: 'MongoDB unreachable', ...error },
          ...webhookNotFound,
        },
      },
    },
    ...schedulePaths('/schedules', 'Schedule', {
      view: schedule,
      create: agentCreateBody,
      update: agentUpdateBody,
      list: scheduleList,
      bulk: scheduleBulkPauseResult,
    }),
    '/schedules/by-agent/{agent_id}': {
      get: {
        summary: "An agent's schedules and webhooks (up to 100 of each, newest first)",
        parameters: parametersOf(agentPath, 'path'),
        responses: responses({ '200': { description: 'Schedules and webhooks', ...json(refTo(agentSchedules)) } }),
      },
    },
    ...schedulePaths('/http-schedules', 'HTTP schedule', {
      view: httpSchedule,
      create: httpCreateBody,
      update: httpUpdateBody,
      list: httpScheduleList,
      bulk: httpScheduleBulkPauseResult,
    }),
  },
};
