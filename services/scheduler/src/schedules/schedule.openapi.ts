/** OpenAPI of /schedules and /http-schedules (merged into the service's document). */
import { jsonContent as json, notFoundResponse, withStandardResponses as responses } from '@platform/http';

import { executionListParameters, recentExecutionParameters } from '../executions/execution.openapi';
import { HTTP_METHODS, LIMITS } from './schedule.schemas';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });
const id = { name: 'schedule_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } };
const page = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];

const cronFields = {
  cron_expression: {
    type: 'string',
    description: '5 fields: minute hour day-of-month month day-of-week; ranges, lists, steps, month and day names',
  },
  timezone: { type: 'string', default: 'UTC', description: 'Any IANA zone or alias (e.g. Asia/Calcutta)' },
  max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
  retry_delay: { type: 'integer', minimum: 1, maximum: 3600, default: 60, description: 'Seconds between attempts' },
  overlap_policy: { type: 'string', enum: ['skip', 'allow'], default: 'skip' },
};
const stateFields = {
  id: { type: 'string' },
  user_id: { type: 'string' },
  is_active: { type: 'boolean' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: nullable('string', { format: 'date-time' }),
  next_run_time: nullable('string', {
    format: 'date-time',
    description: 'Next fire in the schedule zone; null while paused',
  }),
  last_run_at: nullable('string', { format: 'date-time' }),
  last_run_success: nullable('boolean'),
  run_count: { type: 'integer' },
};
const agentFields = {
  agent_id: { type: 'string' },
  message: { type: 'string', default: '', maxLength: LIMITS.messageLength },
};
const httpFields = {
  name: { type: 'string', maxLength: LIMITS.nameLength },
  url: { type: 'string', format: 'uri', description: 'http or https' },
  method: { type: 'string', enum: HTTP_METHODS, default: 'GET' },
  headers: {
    type: 'object',
    additionalProperties: { type: 'string' },
    maxProperties: LIMITS.headerCount,
    description: 'Values are encrypted at rest and read back as "***"; sending "***" keeps the stored value',
  },
  query: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: LIMITS.queryCount },
  body: { description: 'Any JSON, sent as application/json (not with GET or HEAD)' },
  timeout_ms: {
    type: 'integer',
    minimum: LIMITS.timeoutMsMin,
    maximum: LIMITS.timeoutMsMax,
    default: LIMITS.timeoutMsDefault,
  },
};

export const scheduleSchemas = {
  Schedule: { type: 'object', properties: { ...stateFields, ...agentFields, ...cronFields } },
  HttpSchedule: { type: 'object', properties: { ...stateFields, ...httpFields, ...cronFields } },
  Execution: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', enum: ['webhook', 'agent_schedule', 'http_schedule'] },
      webhook_id: nullable('string'),
      schedule_id: nullable('string'),
      agent_id: nullable('string'),
      user_id: { type: 'string' },
      session_id: nullable('string'),
      status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'skipped'] },
      success: nullable('boolean'),
      attempt: { type: 'integer' },
      max_attempts: { type: 'integer' },
      scheduled_for: nullable('string', {
        format: 'date-time',
        description: 'Nominal fire time; null for run-now and webhook runs',
      }),
      triggered_at: { type: 'string', format: 'date-time' },
      started_at: nullable('string', { format: 'date-time' }),
      finished_at: nullable('string', { format: 'date-time' }),
      duration_ms: nullable('integer'),
      payload: {},
      response_status: nullable('integer'),
      response_output: nullable('string', { description: 'At most 64 KiB' }),
      error_message: nullable('string'),
    },
  },
  ExecutionList: {
    type: 'object',
    properties: { executions: { type: 'array', items: ref('Execution') }, total: { type: 'integer' } },
  },
};

function pathsFor(base: string, schema: string, noun: string, fields: object) {
  const one = (description: string) =>
    responses({ '200': { description, ...json(ref(schema)) }, ...notFoundResponse(`${noun} not found`) });
  const body = (required: string[]) => json({ type: 'object', required, properties: { ...fields, ...cronFields } });
  const required = schema === 'Schedule' ? ['agent_id', 'cron_expression'] : ['name', 'url', 'cron_expression'];
  const list = {
    type: 'object',
    properties: { schedules: { type: 'array', items: ref(schema) }, total: { type: 'integer' } },
  };
  const bulk = {
    type: 'object',
    properties: {
      message: { type: 'string' },
      total_requested: { type: 'integer' },
      paused_count: { type: 'integer' },
      already_paused_count: { type: 'integer' },
      not_found_count: { type: 'integer' },
      invalid_count: { type: 'integer' },
      paused_schedules: { type: 'array', items: ref(schema) },
    },
  };
  const executions = (description: string) =>
    responses({ '200': { description, ...json(ref('ExecutionList')) }, ...notFoundResponse(`${noun} not found`) });
  return {
    [`${base}/`]: {
      post: {
        summary: `Create (${noun})`,
        requestBody: body(required),
        responses: responses({
          '201': { description: 'Created', ...json(ref(schema)) },
          ...notFoundResponse('Agent not found'),
        }),
      },
      get: {
        summary: 'List yours, newest first',
        parameters: [
          { name: 'agent_id', in: 'query', schema: { type: 'string' } },
          { name: 'is_active', in: 'query', schema: { type: 'boolean' } },
          ...page,
        ],
        responses: responses({ '200': { description: 'Page and total', ...json(list) } }),
      },
    },
    [`${base}/pause-bulk/`]: {
      post: {
        summary: `Pause up to ${LIMITS.bulkIds}`,
        requestBody: json({ type: 'array', maxItems: LIMITS.bulkIds, items: { type: 'string' } }),
        responses: responses({ '200': { description: 'Counts', ...json(bulk) } }),
      },
    },
    [`${base}/executions/recent`]: {
      get: {
        summary: 'Runs of your schedules of this kind in the last hours',
        parameters: recentExecutionParameters,
        responses: responses({ '200': { description: 'Executions', ...json(ref('ExecutionList')) } }),
      },
    },
    [`${base}/{schedule_id}`]: {
      get: { summary: 'Read', parameters: [id], responses: one(noun) },
      patch: {
        summary: 'Change any field; a cron or zone change applies from now',
        parameters: [id],
        requestBody: body([]),
        responses: one('Updated'),
      },
      delete: {
        summary: 'Delete (its firing stops)',
        parameters: [id],
        responses: responses({ '204': { description: 'Deleted' }, ...notFoundResponse(`${noun} not found`) }),
      },
    },
    [`${base}/{schedule_id}/pause`]: {
      post: { summary: 'Pause (idempotent)', parameters: [id], responses: one('Paused') },
    },
    [`${base}/{schedule_id}/resume`]: {
      post: {
        summary: 'Resume (idempotent); fires from the next cron time',
        parameters: [id],
        responses: one('Active'),
      },
    },
    [`${base}/{schedule_id}/trigger`]: {
      post: {
        summary: 'Run now, outside the cron (also while paused)',
        parameters: [id],
        responses: responses({
          '202': {
            description: 'Queued',
            ...json({
              type: 'object',
              properties: { execution_id: { type: 'string' }, status: { type: 'string', enum: ['queued'] } },
            }),
          },
          ...notFoundResponse(`${noun} not found`),
        }),
      },
    },
    [`${base}/{schedule_id}/logs`]: {
      get: {
        summary: 'Its executions, newest first (one per fire; attempts counted in it)',
        parameters: [id, ...executionListParameters],
        responses: executions('Executions'),
      },
    },
  };
}

export const schedulePaths = {
  ...pathsFor('/schedules', 'Schedule', 'Schedule', agentFields),
  '/schedules/by-agent/{agent_id}': {
    get: {
      summary: "An agent's schedules and webhooks (up to 100 of each, newest first)",
      parameters: [{ name: 'agent_id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: responses({
        '200': {
          description: 'Schedules and webhooks',
          ...json({
            type: 'object',
            properties: {
              agent_id: { type: 'string' },
              schedules: { type: 'array', items: ref('Schedule') },
              webhooks: { type: 'array', items: ref('Webhook') },
            },
          }),
        },
      }),
    },
  },
  ...pathsFor('/http-schedules', 'HttpSchedule', 'HTTP schedule', httpFields),
};
