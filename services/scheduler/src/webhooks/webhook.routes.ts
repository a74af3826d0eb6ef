import type { Request } from 'express';

import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import { executionList, logsQuery, recentQuery } from '../executions/execution.schemas';
import type { ExecutionService } from '../executions/execution.service';
import { BULK_PAUSE_MAX_IDS, bulkPauseIds } from '../shared/bulk-pause.schemas';
import { apiKeyOf, bulkPauseRequestBody, callbackRotationDoc } from '../shared/routes';
import {
  bulkPauseResult,
  createBody,
  listQuery,
  regenerateQuery,
  updateBody,
  webhook,
  webhookList,
  webhookPath,
} from './webhook.schemas';
import type { WebhookService } from './webhook.service';

export interface WebhookRoutesDeps {
  service: WebhookService;
  executions: ExecutionService;
}
type Deps = WebhookRoutesDeps;

const idOf = (req: Request) => String(req.params.webhook_id);

const NOT_FOUND = 'Webhook not found';
const oneWebhook = (description: string) => ({ '200': { description, body: webhook }, '404': NOT_FOUND });
const executions = { description: 'Executions', body: executionList };

/**
 * /agent-webhooks routes, their executions included. A malformed webhook id is simply not found (404), so the path is
 * documented, not checked. Fixed paths (`pause-bulk`, `executions/recent`) come before `/{webhook_id}` ones.
 */
export const webhookRoutes: Route<Deps>[] = [
  route({
    method: 'post',
    path: '/agent-webhooks/',
    summary: 'Create a webhook for one of your agents',
    body: createBody,
    responses: { '201': { description: 'Created', body: webhook }, '404': 'Agent not found' },
    handle: ({ service }: Deps, { req, body }) => service.create(principalOf(req), apiKeyOf(req), body),
  }),
  route({
    method: 'get',
    path: '/agent-webhooks/',
    summary: 'List your webhooks, newest first',
    query: listQuery,
    responses: { '200': { description: 'Webhooks', body: webhookList } },
    handle: ({ service }: Deps, { req, query }) => service.list(principalOf(req), query),
  }),
  route({
    method: 'post',
    path: '/agent-webhooks/pause-bulk/',
    summary: `Pause up to ${BULK_PAUSE_MAX_IDS} webhooks`,
    body: bulkPauseIds,
    requestBody: bulkPauseRequestBody,
    responses: { '200': { description: 'Counts and the webhooks paused', body: bulkPauseResult } },
    handle: ({ service }: Deps, { req, body }) => service.pauseBulk(principalOf(req), body),
  }),
  route({
    method: 'get',
    path: '/agent-webhooks/executions/recent',
    summary: 'Runs of your webhooks in the last hours, newest first',
    query: recentQuery,
    responses: { '200': executions },
    handle: ({ executions }: Deps, { req, query }) => executions.recent(principalOf(req), 'webhook', query),
  }),
  route({
    method: 'get',
    path: '/agent-webhooks/{webhook_id}/executions',
    summary: "The webhook's runs, newest first",
    paramsDoc: webhookPath,
    query: logsQuery,
    responses: { '200': executions, '404': NOT_FOUND },
    handle: ({ service, executions }: Deps, { req, query }) => {
      const owner = principalOf(req);
      const id = idOf(req);
      return executions.of(owner, { webhook_id: id }, query, () => service.get(owner, id));
    },
  }),
  route({
    method: 'get',
    path: '/agent-webhooks/{webhook_id}',
    summary: 'Get a webhook',
    paramsDoc: webhookPath,
    responses: oneWebhook('Webhook'),
    handle: ({ service }: Deps, { req }) => service.get(principalOf(req), idOf(req)),
  }),
  route({
    method: 'patch',
    path: '/agent-webhooks/{webhook_id}',
    summary: 'Change the description, the concurrency limit (max_concurrency) or the callback_url',
    paramsDoc: webhookPath,
    body: updateBody,
    bodyOptional: true,
    responses: oneWebhook('Updated'),
    handle: ({ service }: Deps, { req, body }) => service.update(principalOf(req), idOf(req), body),
  }),
  route({
    method: 'delete',
    path: '/agent-webhooks/{webhook_id}',
    summary: 'Delete a webhook',
    paramsDoc: webhookPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    handle: async ({ service }: Deps, { req }) => {
      await service.delete(principalOf(req), idOf(req));
    },
  }),
  route({
    method: 'post',
    path: '/agent-webhooks/{webhook_id}/pause',
    summary: 'Pause (idempotent)',
    paramsDoc: webhookPath,
    responses: oneWebhook('Paused'),
    handle: ({ service }: Deps, { req }) => service.pause(principalOf(req), idOf(req)),
  }),
  route({
    method: 'post',
    path: '/agent-webhooks/{webhook_id}/resume',
    summary: 'Resume (idempotent)',
    paramsDoc: webhookPath,
    responses: oneWebhook('Active'),
    handle: ({ service }: Deps, { req }) => service.resume(principalOf(req), idOf(req)),
  }),
  route({
    method: 'post',
    path: '/agent-webhooks/{webhook_id}/regenerate-secret',
    summary: 'New signing secret; the old one keeps verifying for grace_seconds',
    paramsDoc: webhookPath,
    query: regenerateQuery,
    responses: oneWebhook('Webhook with its new secret'),
    handle: ({ service }: Deps, { req, query }) =>
      service.regenerateSecret(principalOf(req), idOf(req), query.grace_seconds),
  }),
  route({
    method: 'post',
    path: '/agent-webhooks/{webhook_id}/regenerate-callback-secret',
    ...callbackRotationDoc('Webhook', webhook),
    paramsDoc: webhookPath,
    handle: ({ service }: Deps, { req }) => service.regenerateCallbackSecret(principalOf(req), idOf(req)),
  }),
];
