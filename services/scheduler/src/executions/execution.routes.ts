import { Router } from 'express';
import Joi from 'joi';
import { principalOf } from '@platform/auth';
import { pageQuery, validate } from '@platform/http';
import { presentExecution, type ExecutionQuery, type ExecutionRepository } from '@platform/scheduling';

/** Confirms the caller owns the webhook (404 otherwise). */
export type WebhookOwnershipCheck = (owner: { user_id: string; org_id: string }, webhookId: string) => Promise<unknown>;

const byWebhookQuery = Joi.object({ ...pageQuery, success: Joi.boolean() });
const recentQuery = Joi.object({
  ...pageQuery,
  success: Joi.boolean(),
  agent_id: Joi.string().max(64),
  hours: Joi.number().integer().min(1).max(720).default(24),
});

/** Execution logs of webhook runs. Registered before `/agent-webhooks/:id` routes. */
export function createExecutionRoutes(deps: { executions: ExecutionRepository; ownWebhook: WebhookOwnershipCheck; clock: () => Date }): Router {
  const r = Router();
  const respond = async (owner: { user_id: string; org_id: string }, q: ExecutionQuery) => {
    const { items, total } = await deps.executions.list(owner, q);
    return { executions: items.map(presentExecution), total };
  };

  r.get('/agent-webhooks/executions/recent', async (req, res) => {
    const q = validate<{ skip: number; limit: number; success?: boolean; agent_id?: string; hours: number }>(recentQuery, req.query, 'query');
    const since = new Date(deps.clock().getTime() - q.hours * 3600_000);
    res.json(await respond(principalOf(req), { kinds: ['webhook'], agent_id: q.agent_id, success: q.success, since, skip: q.skip, limit: q.limit }));
  });

  r.get('/agent-webhooks/:id/executions', async (req, res) => {
    const owner = principalOf(req);
    const q = validate<{ skip: number; limit: number; success?: boolean }>(byWebhookQuery, req.query, 'query');
    await deps.ownWebhook(owner, req.params.id);
    res.json(await respond(owner, { webhook_id: req.params.id, success: q.success, skip: q.skip, limit: q.limit }));
  });
  return r;
}
