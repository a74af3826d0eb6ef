import type { Logger } from '@platform/logger';
import { createOutboundClient, type OutboundClient } from '@platform/outbound';
import { createServiceClient } from '@platform/service-client';

export interface AgentServiceOptions {
  /** The agent service's base URL, e.g. http://agent:3002 (trailing slashes ignored). */
  baseUrl: string;
  /** Secret of the agent service's internal on-behalf-of path; null for calls made with the caller's own key. */
  internalSecret: string | null;
  timeoutMs: number;
  logger: Logger;
  /** The caller's outbound client (the agent service's host allowed in it); by default one allowing that host only. */
  outbound?: OutboundClient;
}

/**
 * The agent service through the one client of our services (@platform/service-client). The agent service is one of
 * ours, on a private or loopback address: unless the caller hands its own, the outbound client made here allows
 * exactly its host and port.
 */
export function agentService(opts: AgentServiceOptions) {
  const outbound = opts.outbound ?? createOutboundClient({ allowHosts: new URL(opts.baseUrl).host, maxRedirects: 0 });
  return createServiceClient({
    outbound,
    target: { baseUrl: opts.baseUrl, secret: opts.internalSecret, timeoutMs: opts.timeoutMs },
    logger: opts.logger,
    name: 'agent service',
  });
}
