import { NOT_CONNECTED_CODES } from '@platform/errors';
import { ServiceUnreachableError, type ServiceAnswer } from '@platform/service-client';

/** What failed in a call that got no answer: the outbound client's error, not the client's wrapping of it. */
const rootOf = (err: unknown): unknown => (err instanceof ServiceUnreachableError ? err.cause : err);

/** The error code of a request that got no answer (ECONNREFUSED, ECONNABORTED, …); never the request, which holds keys. */
export const failureCode = (err: unknown): string | undefined => (rootOf(err) as { code?: string } | null)?.code;

/**
 * A call to the agent service that did not succeed. `transient`: worth another attempt (5xx, 429, no answer).
 * `unavailable`: the service could not take the call at all (unreachable, or 503 because its own stores are away);
 * nothing ran, so the caller may wait for it instead of spending an attempt.
 */
export interface CallFailure {
  ok: false;
  transient: boolean;
  unavailable: boolean;
  /** The answer's status; null when there was no answer. */
  status: number | null;
  error: string;
}

/** The `detail` of an error body as one line. */
export function detailOf(data: unknown): string {
  if (data && typeof data === 'object' && 'detail' in data) {
    const d = data.detail;
    if (typeof d === 'string') return d;
    if (Array.isArray(d))
      return d.map((e: { msg?: unknown }) => (typeof e?.msg === 'string' ? e.msg : JSON.stringify(e))).join('; ');
    return JSON.stringify(d);
  }
  return typeof data === 'string' ? data.slice(0, 500) : JSON.stringify(data ?? '').slice(0, 500);
}

/** The failure an answer other than 2xx stands for. */
export const answeredFailure = (status: number, body: unknown): CallFailure => ({
  ok: false,
  transient: status >= 500 || status === 429,
  unavailable: status === 503,
  status,
  error: detailOf(body),
});

/** An answer as the caller's result: a 2xx is what `ok` makes of its body, anything else the failure it stands for. */
export const answered = <T>(res: ServiceAnswer, ok: (data: unknown) => T): T | CallFailure =>
  res.status >= 200 && res.status < 300 ? ok(res.data) : answeredFailure(res.status, res.data);

/** The failure a call that got no answer stands for: a connection never made is `unavailable`. */
export function unansweredFailure(err: unknown): CallFailure {
  const code = failureCode(err);
  const reached = !(code && NOT_CONNECTED_CODES.has(code));
  const what = code ?? (rootOf(err) as { message?: string } | null)?.message ?? 'error';
  return {
    ok: false,
    transient: true,
    unavailable: !reached,
    status: null,
    error: `agent service ${reached ? 'call failed' : 'unreachable'}: ${what}`,
  };
}
