import { createHmac, randomBytes } from 'node:crypto';

import { OutboundError, type OutboundClient } from '@platform/outbound';
import { addWithin, type Queue } from '@platform/queue';

import type { CallbackJob, ExecutionRecord } from './execution.types';

/**
 * Completion callbacks (contract §8): when a run of a webhook or schedule that names a `callback_url` ends, the
 * platform POSTs `{type: "execution.ended", data: <execution>}` to it, signed per the Standard Webhooks
 * specification (https://www.standardwebhooks.com): headers `webhook-id` (the same on every attempt of one
 * delivery, so a receiver can drop repeats), `webhook-timestamp` (seconds, the attempt's) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed by the base64 part of the resource's `whsec_`
 * secret). Attempts go through the outbound guard; 5xx, 429, timeouts and network failures are tried again
 * (`CALLBACK_ATTEMPTS` in all, `CALLBACK_DELAYS_MS` apart: about an hour), any other answer ends the delivery.
 */
export const CALLBACK_EVENT = 'execution.ended';
export const CALLBACK_ATTEMPTS = 5;
/** Waits before the 2nd, 3rd, 4th and 5th attempts (1 + 5 + 15 + 40 minutes). */
export const CALLBACK_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 40 * 60_000] as const;
/** Longest wait for a receiver's answer; its body is not kept beyond this many bytes. */
export const CALLBACK_TIMEOUT_MS = 10_000;
export const CALLBACK_MAX_RESPONSE_BYTES = 64 * 1024;

const SECRET_PREFIX = 'whsec_';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newCallbackSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The `webhook-signature` value of one attempt. */
export function signCallback(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The `webhook-id` of an execution's delivery: stable across attempts and across replicas. */
export const callbackMessageId = (executionId: string) => `msg_${executionId}`;

export type CallbackAttempt =
  { delivered: true; status: number } | { delivered: false; retryable: boolean; status: number | null; error: string };

/** One attempt to deliver `data` (the public execution) to `url`, signed with `secret`, at `now`. */
export async function attemptCallback(
  outbound: OutboundClient,
  target: { url: string; secret: string },
  executionId: string,
  data: unknown,
  now: Date,
  timeoutMs = CALLBACK_TIMEOUT_MS,
): Promise<CallbackAttempt> {
  const body = JSON.stringify({ type: CALLBACK_EVENT, data });
  const id = callbackMessageId(executionId);
  const timestamp = Math.floor(now.getTime() / 1000);
  try {
    const res = await outbound.request({
      url: target.url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signCallback(target.secret, id, timestamp, body),
      },
      body,
      timeoutMs,
      maxResponseBytes: CALLBACK_MAX_RESPONSE_BYTES,
    });
    if (res.status >= 200 && res.status < 300) return { delivered: true, status: res.status };
    return {
      delivered: false,
      retryable: res.status >= 500 || res.status === 429,
      status: res.status,
      error: `receiver answered ${res.status}`,
    };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    // A refused address or an unusable URL fails the same way every time; the rest may pass later.
    const final = err.code === 'BLOCKED' || err.code === 'BAD_URL';
    return { delivered: false, retryable: !final, status: null, error: err.message };
  }
}

/** The job id of an execution's delivery: one delivery per run, however often its end is reported. */
export const callbackJobId = (executionId: string) => `cb-${executionId}`;

/**
 * Queues the delivery of an ended run's callback (a run without one: nothing). Attempts and their spacing are the
 * job's (`attempts`, and a custom backoff the consumer computes from `CALLBACK_DELAYS_MS` or its override).
 */
export async function enqueueCallback(
  queue: Queue<CallbackJob>,
  exec: Pick<ExecutionRecord, 'id' | 'callback'>,
  timeoutMs: number,
): Promise<void> {
  if (!exec.callback) return;
  await addWithin(
    queue,
    timeoutMs,
    'deliver',
    { execution_id: exec.id },
    { jobId: callbackJobId(exec.id), attempts: CALLBACK_ATTEMPTS, backoff: { type: 'callback' } },
  );
}
