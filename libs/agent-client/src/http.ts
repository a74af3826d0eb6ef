import axios, { type AxiosInstance, type CreateAxiosDefaults } from 'axios';

import { currentRequestId } from '@platform/logger';

export interface AgentServiceHttpOptions {
  /** The agent service's base URL, e.g. http://agent:3002 (trailing slashes ignored). */
  baseUrl: string;
  timeoutMs: number;
  /** Further axios settings of this caller (redirects, size caps, proxy). */
  extra?: CreateAxiosDefaults;
}

/** An axios instance for the agent service: every status is an answer (the callers read it), never a throw. */
export function agentServiceHttp(opts: AgentServiceHttpOptions): AxiosInstance {
  return axios.create({
    baseURL: opts.baseUrl.replace(/\/+$/, ''),
    timeout: opts.timeoutMs,
    validateStatus: () => true,
    ...opts.extra,
  });
}

/** The error code of a request that got no answer (ECONNREFUSED, ECONNABORTED, …); never the request, which holds keys. */
export const failureCode = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;

/** The current request's id as a header, so the agent service logs the call under the id of what caused it. */
export function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id ? { 'x-request-id': id } : {};
}
