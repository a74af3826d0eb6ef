import { currentRequestId } from '@platform/logger';

/** The error code of a request that got no answer (ECONNREFUSED, ECONNABORTED, …); never the request, which holds keys. */
export const failureCode = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;

/** The current request's id as a header, so the agent service logs the call under the id of what caused it. */
export function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id ? { 'x-request-id': id } : {};
}
