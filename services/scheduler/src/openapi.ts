/** OpenAPI description of the scheduler service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  withStandardResponses as responses,
} from '@platform/http';

import { executionListParameters, recentExecutionParameters } from './executions/execution.openapi';
import { schedulePaths, scheduleSchemas } from './schedules/schedule.openapi';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const id = { name: 'webhook_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } };
const notFound = notFoundResponse('Webhook not found');
const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });
const webhook = (description: string) => responses({ '200': { description, ...json(ref('Webhook')) }, ...notFound });
const listParameters = [
  { name: 'agent_id', in: 'query', schema: { type: 'string' } },
  { name: 'is_active', in: 'query', schema: { type: 'boolean' } },
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const grace = {
  name: 'grace_seconds',
  in: 'query',
  schema: { type: 'integer', minimum: 0, maximum: 604800, default: 86400 },
};
const description = nullable('string', { maxLength: 1000 });

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Scheduler service',
    version: '1.1.0',
    description: 'Webhooks and cron schedules that run agents, and HTTP endpoints on cron.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: {
      ...errorSchemas,
      ...scheduleSchemas,
      Webhook: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          agent_id: { type: 'string' },
          user_id: { type: 'string' },
          description: nullable('string'),
          webhook_url: { type: 'string', format: 'uri' },
          secret_key: { type: 'string', description: 'whsec_ + base64 of 32 random bytes' },
          is_active: { type: 'boolean' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: nullable('string', { format: 'date-time' }),
          last_triggered_at: nullable('string', { format: 'date-time' }),
          last_trigger_success: nullable('boolean'),
          trigger_count: { type: 'integer' },
        },
      },
      WebhookList: {
        type: 'object',
        properties: { webhooks: { type: 'array', items: ref('Webhook') }, total: { type: 'integer' } },
      },
      BulkPauseResult: {
        type: 'object',
        properties: {
          message: { type: 'string' },
          total_requested: { type: 'integer' },
          paused_count: { type: 'integer' },
          already_paused_count: { type: 'integer' },
          not_found_count: { type: 'integer' },
          invalid_count: { type: 'integer' },
          paused_webhooks: { type: 'array', items: ref('Webhook') },
        },
      },
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/agent-webhooks/': {
      post: {
        summary: 'Create a webhook for one of your agents',
        requestBody: json({
          type: 'object',
          required: ['agent_id'],
          properties: { agent_id: { type: 'string' }, description },
        }),
        responses: responses({
          '201': { description: 'Created', ...json(ref('Webhook')) },
          ...notFoundResponse('Agent not found'),
        }),
      },
      get: {
        summary: 'List your webhooks, newest first',
        parameters: listParameters,
        responses: responses({ '200': { description: 'Webhooks', ...json(ref('WebhookList')) } }),
      },
    },
    '/agent-webhooks/pause-bulk/': {
      post: {
        summary: 'Pause up to 100 webhooks',
        requestBody: json({ type: 'array', maxItems: 100, items: { type: 'string' } }),
        responses: responses({
          '200': { description: 'Counts and the webhooks paused', ...json(ref('BulkPauseResult')) },
        }),
      },
    },
    '/agent-webhooks/{webhook_id}': {
      get: { summary: 'Get a webhook', parameters: [id], responses: webhook('Webhook') },
      patch: {
        summary: 'Change the description',
        parameters: [id],
        requestBody: json({ type: 'object', properties: { description } }),
        responses: webhook('Updated'),
      },
      delete: {
        summary: 'Delete a webhook',
        parameters: [id],
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    '/agent-webhooks/{webhook_id}/pause': {
      post: { summary: 'Pause (idempotent)', parameters: [id], responses: webhook('Paused') },
    },
    '/agent-webhooks/{webhook_id}/resume': {
      post: { summary: 'Resume (idempotent)', parameters: [id], responses: webhook('Active') },
    },
    '/agent-webhooks/{webhook_id}/regenerate-secret': {
      post: {
        summary: 'New signing secret; the old one keeps verifying for grace_seconds',
        parameters: [id, grace],
        responses: webhook('Webhook with its new secret'),
      },
    },
    '/agent-webhooks/{webhook_id}/executions': {
      get: {
        summary: "The webhook's runs, newest first",
        parameters: [id, ...executionListParameters],
        responses: responses({ '200': { description: 'Executions', ...json(ref('ExecutionList')) }, ...notFound }),
      },
    },
    '/agent-webhooks/executions/recent': {
      get: {
        summary: 'Runs of your webhooks in the last hours, newest first',
        parameters: recentExecutionParameters,
        responses: responses({ '200': { description: 'Executions', ...json(ref('ExecutionList')) } }),
      },
    },
    '/webhook-trigger/{webhook_id}': {
      post: {
        summary: "Run the webhook's agent with the signed body (no API key)",
        description:
          'The raw bytes are read whatever the Content-Type (senders label bodies in many ways) and must be JSON of at most 1 MiB. ' +
          'Signed with X-Webhook-Signature: sha256=<hex HMAC of the body keyed with secret_key>, or the Standard Webhooks headers.',
        security: [],
        parameters: [
          id,
          ...['x-webhook-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'idempotency-key'].map(
            (name) => ({ name, in: 'header', schema: { type: 'string' } }),
          ),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: {} }, '*/*': { schema: { type: 'string', format: 'binary' } } },
        },
        responses: {
          '202': {
            description: 'Accepted: the run is stored and queued',
            ...json({
              type: 'object',
              properties: {
                message: { type: 'string' },
                execution_id: { type: 'string' },
                status: { type: 'string', enum: ['queued'] },
              },
            }),
          },
          '200': {
            description: 'Already accepted under the same Idempotency-Key or webhook-id (nothing runs)',
            ...json({ type: 'object' }),
          },
          '401': { description: 'Invalid signature', ...json(ref('Error')) },
          '409': { description: 'Webhook is paused', ...json(ref('Error')) },
          '413': { description: 'Body over 1 MiB', ...json(ref('Error')) },
          '422': { description: 'Body is not JSON', ...json(ref('ValidationError')) },
          '503': { description: 'MongoDB unreachable', ...json(ref('Error')) },
          ...notFound,
        },
      },
    },
    ...schedulePaths,
  },
};
