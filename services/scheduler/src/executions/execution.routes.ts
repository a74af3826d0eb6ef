import { Router } from 'express';
import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';
import type { ExecutionRepository } from '@platform/scheduling';
import { listExecutions, logsQuery, recentFilter, recentQuery, type LogsQuery, type RecentQuery } from './execution.queries';

/** Confirms the caller owns the webhook (404 otherwise). */
export type WebhookOwnershipCheck = (owner: { user_id: string; org_id: string }, webhookId: string) => Promise<unknown>;

/** Execution logs of webhook runs. Registered before `/agent-webhooks/:id` routes. */
export function createExecutionRoutes(deps: { executions: ExecutionRepository; ownWebhook: WebhookOwnershipCheck; clock: () => Date }): Router {
  const r = Router();

  r.get('/agent-webhooks/executions/recent', async (req, res) => {
    const q = validate<RecentQuery>(recentQuery, req.query, 'query');
    res.json(await listExecutions(deps.executions, principalOf(req), recentFilter('webhook', q, deps.clock())));
  });

  r.get('/agent-webhooks/:id/executions', async (req, res) => {
    const owner = principalOf(req);
    const q = validate<LogsQuery>(logsQuery, req.query, 'query');
    await deps.ownWebhook(owner, req.params.id);
    res.json(await listExecutions(deps.executions, owner, { webhook_id: req.params.id, success: q.success, skip: q.skip, limit: q.limit }));
  });
  return r;
}
