import { createOutboundClient, type OutboundClient } from '@platform/outbound';
import { createAgentServiceClient } from '@platform/sdk';

import { requestIdHeader } from './http';

export interface AgentServiceClientOptions {
  /** The agent service's base URL, e.g. http://agent:3002 (trailing slashes ignored). */
  baseUrl: string;
  timeoutMs: number;
  /** The caller's outbound client (the agent service's host allowed in it); by default one allowing that host only. */
  outbound?: OutboundClient;
  maxResponseBytes?: number;
}

/**
 * The typed agent service client (@platform/sdk) over @platform/outbound. The agent service is one of ours, on a
 * private or loopback address: the client made here allows exactly its host and port, follows no redirect, and
 * caps each call in time and size. Each call carries the current request's id, so the agent service logs it under
 * the id of what caused it.
 */
export function agentServiceClient(opts: AgentServiceClientOptions) {
  const outbound =
    opts.outbound ??
    createOutboundClient({
      allowHosts: new URL(opts.baseUrl).host,
      timeoutMs: opts.timeoutMs,
      maxRedirects: 0,
      maxResponseBytes: opts.maxResponseBytes,
    });
  const client = createAgentServiceClient({
    baseUrl: opts.baseUrl,
    outbound,
    timeoutMs: opts.timeoutMs,
    maxResponseBytes: opts.maxResponseBytes,
    maxRedirects: 0,
  });
  client.use({
    onRequest: ({ request }) => {
      for (const [name, value] of Object.entries(requestIdHeader())) request.headers.set(name, value);
      return request;
    },
  });
  return client;
}
