import { OutboundError, type OutboundClient } from '@platform/outbound';
import type { ExecutionRecord, FireReader, HttpTarget } from '@platform/scheduling';
import { openValues, type SecretBox } from '@platform/secrets';

import {
  createDirectRun,
  createRunProcessor,
  type AttemptResult,
  type HandOver,
  type RunLifecycleDeps,
} from './run-lifecycle';
import { failedOutcome } from './run-outcome';

export interface HttpRunDeps extends RunLifecycleDeps {
  /** The schedule as its fire read it a moment ago, else as read now. */
  schedules: Pick<FireReader, 'current'>;
  outbound: OutboundClient;
  /** Opens the sealed header values of HTTP schedules. */
  box: SecretBox;
  /** Largest response body read; a larger one fails the attempt. */
  maxResponseBytes: number;
}

/** Outbound failures not worth another attempt: the guard refused the address, or the URL is unusable. */
const FINAL_CODES = new Set(['BLOCKED', 'BAD_URL']);

function requestOf(http: HttpTarget, box: SecretBox) {
  const url = new URL(http.url);
  for (const [k, v] of Object.entries(http.query)) url.searchParams.append(k, v);
  const headers = openValues(box, http.headers_sealed);
  const sendsBody = http.body !== null && http.body !== undefined && !['GET', 'HEAD'].includes(http.method);
  if (sendsBody && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  return {
    url: url.toString(),
    method: http.method,
    headers,
    body: sendsBody ? bodyText(http.body, headers) : undefined,
    timeoutMs: http.timeout_ms,
  };
}

/**
 * The bytes of a stored body: under a JSON content type its JSON text, always (a string body `"42"` is sent as
 * `"42"`, never as the number its text reads as); under another content type a string as it is, other values as
 * JSON text.
 */
function bodyText(body: unknown, headers: Record<string, string>): string {
  const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  const json = /(^|[/+])json(\s*;|\s*$)/i.test(type.split(',')[0]!.trim());
  return typeof body === 'string' && !json ? body : JSON.stringify(body);
}

/**
 * Processes one `http-calls` job: an HTTP schedule's fire calls its endpoint through the outbound guard (every
 * connection and redirect checked) within the schedule's timeout. A 2xx succeeds; the status and up to 64 KiB of
 * the body are stored. Any other status, a timeout or a network failure is retried `retry_delay` apart while
 * attempts remain; a refused address is final. The call uses the schedule as it is at the attempt (as read by its
 * fire when that was at most a few seconds ago: schedule.fire-reader.ts).
 */
export function createHttpRunProcessor(deps: HttpRunDeps) {
  return createRunProcessor(deps, 'http-run', httpAttempt(deps));
}

/**
 * The first attempt of an HTTP schedule's run, made by its fire itself (see `createDirectRun`): the same call as a
 * job's, with no job added, taken and finished for it.
 */
export function createHttpDirectRun(deps: HttpRunDeps & { backoffMs: number }, handOver: HandOver) {
  return createDirectRun(deps, 'http-run', httpAttempt(deps), handOver);
}

function httpAttempt(deps: HttpRunDeps) {
  return async (exec: ExecutionRecord): Promise<AttemptResult> => {
    const schedule = exec.schedule_id ? await deps.schedules.current(exec.schedule_id) : null;
    if (!schedule?.http) return { retryable: false, outcome: failedOutcome('the HTTP schedule no longer exists') };
    try {
      const res = await deps.outbound.request({
        ...requestOf(schedule.http, deps.box),
        maxResponseBytes: deps.maxResponseBytes,
      });
      const success = res.status >= 200 && res.status < 300;
      return {
        retryable: !success,
        outcome: {
          success,
          response_status: res.status,
          response_output: res.text,
          error_message: success ? null : `endpoint answered ${res.status}`,
        },
      };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return { retryable: !FINAL_CODES.has(err.code), outcome: failedOutcome(err.message) };
    }
  };
}
