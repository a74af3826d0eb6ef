import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '@platform/errors';
import { parseJsonBytes } from '@platform/http';
import type { Logger } from '@platform/logger';
import {
  callbackTargetOf,
  type ExecutionRecord,
  type ExecutionRepository,
  type IdempotencyStore,
  type WebhookStats,
} from '@platform/scheduling';
import type { SecretBox } from '@platform/secrets';

import { verifySignature, type SignatureHeaders } from './signature';
import type { WebhookRepository } from './webhook.repository';
import type { WebhookTriggerAccepted, WebhookTriggerReplayed } from './webhook.schemas.types';
import { openWebhookSecrets, verificationSecrets } from './webhook.secrets';

export interface TriggerRequest {
  webhookId: string;
  body: Buffer;
  headers: SignatureHeaders & { 'idempotency-key'?: string };
}

/** 202 with the queued run, or 200 with the run a replayed idempotency key names. */
export type TriggerResult =
  { status: 202; body: WebhookTriggerAccepted } | { status: 200; body: WebhookTriggerReplayed };

export interface TriggerServiceDeps {
  /** The webhooks, read by id alone: the trigger carries no API key. */
  webhooks: Pick<WebhookRepository, 'findForTrigger'>;
  executions: ExecutionRepository;
  idempotency: IdempotencyStore;
  /** trigger_count and last_triggered_at, written off the request path. */
  stats: WebhookStats;
  box: SecretBox;
  /** Puts the execution on the queue; rejects when Redis does not take it in time (the outbox retries). */
  enqueue: (exec: ExecutionRecord) => Promise<unknown>;
  /** Attempts of a webhook run (1 + retries of transient failures). */
  maxAttempts: number;
  clock: () => Date;
  logger: Logger;
}

const MAX_KEY = 255;

/**
 * The webhook trigger (`POST /webhook-trigger/{webhook_id}` of the OpenAPI document): 404 unknown, 401 bad
 * signature, 409 paused, 422 not JSON, 200 for a replayed idempotency key, else store the execution, count the
 * trigger, enqueue, 202. The 202 is only sent once the execution is stored; if Redis does not take the job, the
 * execution stays queued for the outbox.
 */
export function createTriggerService(deps: TriggerServiceDeps) {
  const log = deps.logger.child({ module: 'trigger' });

  function idempotencyKey(h: TriggerRequest['headers']): string | undefined {
    const key = h['idempotency-key'] ?? h['webhook-id'];
    if (key === undefined || key === '') return undefined;
    if (key.length > MAX_KEY)
      throw ValidationError.field(['header', 'idempotency-key'], `At most ${MAX_KEY} characters`, 'string_too_long');
    return key;
  }

  async function replayOf(executionId: string): Promise<TriggerResult> {
    const first = await deps.executions.get(executionId);
    return {
      status: 200,
      body: { message: 'Webhook already accepted', execution_id: executionId, status: first?.status ?? 'queued' },
    };
  }

  return async (req: TriggerRequest): Promise<TriggerResult> => {
    const now = deps.clock();
    const target = await deps.webhooks.findForTrigger(req.webhookId);
    if (!target) throw new NotFoundError('Webhook');
    const secrets = verificationSecrets(openWebhookSecrets(deps.box, target), now);
    if (!verifySignature(req.headers, req.body, secrets, now)) throw new UnauthorizedError('Invalid signature');
    if (!target.is_active) throw new ConflictError('Webhook is paused');
    const payload = parseJsonBytes(req.body);
    const key = idempotencyKey(req.headers);

    const exec = await deps.executions.create(
      {
        kind: 'webhook',
        webhook_id: target.id,
        agent_id: target.agent_id,
        user_id: target.user_id,
        org_id: target.org_id,
        payload,
        max_attempts: deps.maxAttempts,
        // The record at hand (cached with its callback fields): no read of its own.
        callback: callbackTargetOf(target),
      },
      now,
    );
    if (key !== undefined) {
      const holder = await deps.idempotency.claim(target.id, key, exec.id, now);
      if (holder !== exec.id) {
        await deps.executions.delete(exec.id);
        return replayOf(holder);
      }
    }
    deps.stats.accepted(target.id, now);
    try {
      await deps.enqueue(exec);
    } catch (err) {
      log.warn('queue unavailable; execution left to the outbox', {
        execution_id: exec.id,
        err: (err as Error).message,
      });
    }
    return { status: 202, body: { message: 'Webhook accepted', execution_id: exec.id, status: 'queued' } };
  };
}

export type TriggerService = ReturnType<typeof createTriggerService>;
