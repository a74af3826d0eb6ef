import { BadGatewayError } from '@platform/errors';
import {
  OutboundBlockedError,
  OutboundError,
  OutboundNetworkError,
  OutboundTimeoutError,
  OutboundTooLargeError,
  type OutboundClient,
} from '@platform/outbound';

import { urlOf } from './remote-call';
import type { ExecuteResult, RemoteCall } from './tool.types';

/** Default time limit of one tool call, redirects included (TOOL_CALL_TIMEOUT_MS). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** Largest remote response a tool call accepts; larger → 502. */
export const MAX_TOOL_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface ToolExecutorDeps {
  outbound: OutboundClient;
  timeoutMs: number;
  maxResponseBytes?: number;
}

const failed = (reason: string) => new BadGatewayError(`Tool API error: ${reason}`);

/** Calls a tool's remote API through the outbound guard; any remote status is a result, a failure to get one a 502. */
export function createToolExecutor(deps: ToolExecutorDeps) {
  const cap = deps.maxResponseBytes ?? MAX_TOOL_RESPONSE_BYTES;

  function toGatewayError(err: unknown): Error {
    if (err instanceof OutboundTimeoutError) return failed(`timeout after ${deps.timeoutMs} ms`);
    if (err instanceof OutboundTooLargeError) return failed(`response larger than ${cap} bytes`);
    if (err instanceof OutboundBlockedError) return failed(err.message);
    if (err instanceof OutboundNetworkError) return failed(`connection failed (${err.code})`);
    if (err instanceof OutboundError) return failed(err.message);
    return err as Error;
  }

  return {
    async call(baseUrl: string, call: RemoteCall): Promise<ExecuteResult> {
      const hasBody = call.body !== undefined && call.method !== 'get' && call.method !== 'head';
      const typed = Object.keys(call.headers).some((k) => k.toLowerCase() === 'content-type');
      const headers = hasBody && !typed ? { 'content-type': 'application/json', ...call.headers } : call.headers;
      try {
        const res = await deps.outbound.request({
          url: urlOf(baseUrl, call),
          method: call.method.toUpperCase(),
          headers,
          body: hasBody ? JSON.stringify(call.body) : undefined,
          timeoutMs: deps.timeoutMs,
          maxResponseBytes: cap,
        });
        return { status_code: res.status, headers: res.headers, data: res.data };
      } catch (err) {
        throw toGatewayError(err);
      }
    },
  };
}

export type ToolExecutor = ReturnType<typeof createToolExecutor>;
