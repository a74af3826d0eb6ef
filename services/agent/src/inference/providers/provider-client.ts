import { BadGatewayError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import {
  OutboundBlockedError,
  OutboundNetworkError,
  OutboundTimeoutError,
  OutboundTooLargeError,
  type OutboundClient,
  type OutboundResponse,
} from '@platform/outbound';
import { annotate, inSpan } from '@platform/tracing';

import type { ModelReply } from '../inference.types';
import { providerAttributes, usageAttributes } from './provider-spans';
import {
  ProviderReplyError,
  type HttpCall,
  type ModelRequest,
  type ProviderAdapter,
  type ProviderTarget,
} from './provider.types';
import { isRetryableStatus, MAX_RETRIES, retryAfterMs, retryDelayMs } from './retry-policy';

export interface ProviderClientDeps {
  outbound: OutboundClient;
  /** Time limit of one inference's provider call, retries and waits included. */
  timeoutMs: number;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const MAX_REPLY_BYTES = 10 * 1024 * 1024;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A provider's words with the key cut out, in case it echoes the key back (some do, in auth errors). */
const scrub = (message: string, apiKey: string) =>
  (apiKey ? message.split(apiKey).join('***') : message).slice(0, 1000);

/** 502 `LLM provider error: ...`. */
export function providerError(message: string, apiKey: string, status?: number): BadGatewayError {
  return new BadGatewayError(`LLM provider error: ${scrub(message, apiKey)}`, status);
}

/** The provider's own explanation: `error.message` (OpenAI, Anthropic), `error`, `message` or `detail`, else the body. */
export function providerMessage(res: OutboundResponse): string {
  const d = res.data as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown } | null;
  const candidates = [typeof d?.error === 'object' ? d.error?.message : d?.error, d?.message, d?.detail];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  if (found) return found;
  if (res.headers.location)
    return `redirected to ${res.headers.location}; set the credential's base_url to the final address`;
  return res.text.trim().slice(0, 300) || 'no message';
}

interface Failure {
  detail: string;
  status?: number;
  retryable: boolean;
  askedMs?: number;
}

function failureOf(res: OutboundResponse | OutboundNetworkError, now: number): Failure {
  if (res instanceof OutboundNetworkError) return { detail: `connection failed (${res.code})`, retryable: true };
  const askedMs = retryAfterMs(res.headers, now);
  return {
    detail: `${res.status} ${providerMessage(res)}`,
    status: res.status,
    retryable: isRetryableStatus(res.status),
    askedMs,
  };
}

/**
 * Calls a provider with the agent's request: one deadline for the whole call, at most two retries on 429, 5xx and
 * connection failures (honouring Retry-After, capped at 20 s, never past the deadline), and every failure as a 502.
 */
export function createProviderClient(deps: ProviderClientDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? realSleep;

  /** One attempt: a response of any status, or a connection failure worth retrying. Anything final throws a 502. */
  async function attempt(
    call: HttpCall,
    deadline: number,
    apiKey: string,
  ): Promise<OutboundResponse | OutboundNetworkError> {
    const timeoutMs = Math.max(1, deadline - now());
    try {
      return await deps.outbound.request({
        ...call,
        method: 'POST',
        timeoutMs,
        maxResponseBytes: MAX_REPLY_BYTES,
        maxRedirects: 0,
      });
    } catch (err) {
      if (err instanceof OutboundNetworkError) return err;
      if (err instanceof OutboundTimeoutError) throw providerError(`timeout after ${deps.timeoutMs} ms`, apiKey);
      if (err instanceof OutboundTooLargeError)
        throw providerError(`reply larger than ${MAX_REPLY_BYTES} bytes`, apiKey);
      if (err instanceof OutboundBlockedError) throw providerError(err.message, apiKey);
      throw err;
    }
  }

  function parse(adapter: ProviderAdapter, res: OutboundResponse, req: ModelRequest, apiKey: string): ModelReply {
    try {
      return adapter.parse(res.data, req);
    } catch (err) {
      if (err instanceof ProviderReplyError) throw providerError(`${res.status} ${err.message}`, apiKey, res.status);
      throw err;
    }
  }

  return {
    complete(adapter: ProviderAdapter, target: ProviderTarget, req: ModelRequest): Promise<ModelReply> {
      const call = adapter.build(target, req);
      return inSpan('provider call', { attributes: providerAttributes(target, req, call.url) }, async () => {
        const reply = await completeCall(adapter, target, req, call);
        annotate(usageAttributes(reply));
        return reply;
      });
    },
  };

  /** The call, retried on a transient failure (retry-policy.ts) within the deadline. */
  async function completeCall(adapter: ProviderAdapter, target: ProviderTarget, req: ModelRequest, call: HttpCall) {
    const deadline = now() + deps.timeoutMs;
    const log = { provider: target.providerId, model: req.model, host: new URL(call.url).host };
    for (let n = 0; ; n++) {
      const res = await attempt(call, deadline, target.apiKey);
      if (!(res instanceof OutboundNetworkError) && res.status >= 200 && res.status < 300)
        return parse(adapter, res, req, target.apiKey);
      const failure = failureOf(res, now());
      const wait = retryDelayMs(n, failure.askedMs);
      const retrying = failure.retryable && n < MAX_RETRIES && now() + wait < deadline;
      deps.logger.warn('LLM provider call failed', {
        ...log,
        attempt: n + 1,
        status: failure.status ?? null,
        reason: scrub(failure.detail, target.apiKey),
        retrying,
        wait_ms: retrying ? wait : null,
      });
      if (!retrying) throw providerError(failure.detail, target.apiKey, failure.status);
      await sleep(wait);
    }
  }
}

export type ProviderClient = ReturnType<typeof createProviderClient>;
