import type Joi from 'joi';

import { internalCallHeaders } from '@platform/auth';
import { ServiceUnavailableError } from '@platform/errors';
import { currentRequestId, type Logger } from '@platform/logger';
import type { OutboundClient } from '@platform/outbound';

/** Another service of ours and how to reach it. */
export interface ServiceTarget {
  /** e.g. http://rag:3004 (trailing slashes ignored). */
  baseUrl: string;
  /** The internal on-behalf-of secret shared with that service; null: no call can be made (503). */
  secret: string | null;
  /** Per-call time limit unless the call sets its own. */
  timeoutMs?: number;
}

/** Whose behalf a call is made on: the called service scopes everything to this owner. */
export interface CallOwner {
  user_id: string;
  org_id: string;
}

/**
 * What to do with an answer of a given status: return a value for the caller, or throw. It is handed the answer's
 * body (parsed JSON, else the text), e.g. to pass on the called service's own `detail`.
 */
export type StatusHandler<T> = (body: unknown) => T;

/** Who a call is made for: an owner on the internal path (needs the target's secret), or the caller's own API key. */
export type CallAuth = { owner: CallOwner; apiKey?: never } | { apiKey: string; owner?: never };

/** One request to the service, and what any answer it gets is read as. */
export type ServiceRequest = CallAuth & {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base URL, e.g. `/v3/rag/abc`; `query` is appended encoded. */
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON; a Buffer is sent as is, with `contentType` (e.g. a multipart/form-data upload). */
  body?: unknown;
  /** The Content-Type of a Buffer body. */
  contentType?: string;
  timeoutMs?: number;
  /** Default 1 MiB. */
  maxResponseBytes?: number;
  /** What this call is, for the logs: e.g. "a credential check". */
  what: string;
};

export type ServiceCall<T> = ServiceRequest & {
  /** The shape a 200 answer must have (unknown keys allowed): anything else is an unexpected answer. */
  response: Joi.Schema<T>;
  /** Answers other than 200 that mean something, by status: e.g. `{ 404: () => { throw new NotFoundError(...) } }`. */
  on?: Partial<Record<number, StatusHandler<T>>>;
};

/** Any answer: its status and body (parsed JSON, else the text). */
export interface ServiceAnswer {
  status: number;
  data: unknown;
}

/**
 * A call that got no answer (not configured, unreachable, timed out, answer too large): 503, with the outbound
 * client's error as the cause (its `code`, e.g. ECONNREFUSED, says whether a connection was made).
 */
export class ServiceUnreachableError extends ServiceUnavailableError {}

export interface ServiceClientDeps {
  outbound: OutboundClient;
  /** Null: the service is not configured, and every call is a 503. */
  target: ServiceTarget | null;
  logger: Logger;
  /** The service's name in logs, e.g. "rag service". */
  name: string;
  /** The error of a service that answers unexpectedly (a status no handler takes, or a 200 of the wrong shape). */
  unexpected?: () => Error;
}

/** The current request's id as a header, so the called service logs the call under the id of what caused it. */
function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id ? { 'x-request-id': id } : {};
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Calls another service of ours on behalf of an owner (or with the caller's own key), the one way every service does
 * it: the internal headers (secret, owner, request id), a time and size limit, no redirects, through the guarded
 * outbound client. Not
 * configured or unreachable → ServiceUnavailableError (503); a 200 is checked against the call's response schema;
 * other statuses go to the call's handlers; anything else is unexpected (503 unless the client says otherwise),
 * logged with its status, never with the body.
 */
export function createServiceClient(deps: ServiceClientDeps) {
  const unexpected = deps.unexpected ?? (() => new ServiceUnavailableError());

  /** The headers of the call's auth; null when it needs the internal secret and there is none. */
  function authHeaders(c: ServiceRequest): Record<string, string> | null {
    if (c.apiKey !== undefined) return { 'x-api-key': c.apiKey, ...requestIdHeader() };
    const secret = deps.target?.secret;
    return secret ? internalCallHeaders(secret, c.owner) : null;
  }

  /** Sends one request; any status is an answer. No answer → ServiceUnreachableError (not logged: the caller says). */
  async function send(c: ServiceRequest): Promise<ServiceAnswer> {
    const target = deps.target;
    const auth = target && authHeaders(c);
    if (!target || !auth) throw new ServiceUnreachableError(new Error(`the ${deps.name} is not configured`));
    // Read at each call: a target's address may be settled after the client is made (a port bound later).
    const base = target.baseUrl.replace(/\/+$/, '');
    const qs = c.query ? `?${new URLSearchParams(c.query).toString()}` : '';
    const res = await deps.outbound
      .request({
        url: `${base}${c.path}${qs}`,
        method: c.method ?? 'GET',
        headers: { ...auth, ...(c.contentType ? { 'content-type': c.contentType } : {}) },
        ...(c.body === undefined ? {} : { body: c.body }),
        timeoutMs: c.timeoutMs ?? target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxResponseBytes: c.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        maxRedirects: 0,
      })
      .catch((err: unknown) => {
        throw new ServiceUnreachableError(err);
      });
    return { status: res.status, data: res.data };
  }

  return {
    /** Whether calls on an owner's behalf can be made at all (a target with a secret). */
    get configured(): boolean {
      return !!deps.target?.secret;
    },
    send,
    /** A call whose 200 is checked against `response`, other statuses handled by `on`, anything else unexpected. */
    async call<T>(c: ServiceCall<T>): Promise<T> {
      const res = await send(c).catch((err: unknown) => {
        const cause = (err as Error).cause as { message?: string } | undefined;
        if (!deps.target || !authHeaders(c))
          deps.logger.error(`${c.what} impossible: the ${deps.name} or INTERNAL_SERVICE_SECRET is not set`);
        else deps.logger.warn(`${deps.name} unreachable for ${c.what}`, { message: cause?.message });
        throw err;
      });
      if (res.status === 200) {
        const checked = c.response.validate(res.data, { allowUnknown: true, convert: false });
        if (!checked.error) return checked.value;
        deps.logger.warn(`${deps.name} answered ${c.what} with an unexpected body`, {
          problem: checked.error.details[0]?.message,
        });
        throw unexpected();
      }
      const handler = c.on?.[res.status];
      if (handler) return handler(res.data);
      deps.logger.warn(`${deps.name} answered ${c.what} unexpectedly`, { status: res.status });
      throw unexpected();
    },
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
