/**
 * The path prefixes of the services' OpenAPI documents: the services' paths do not overlap, so one host can route by
 * prefix alone. Longest prefix first is not needed (no prefix is another's prefix), but the order is kept stable.
 */
export const ROUTE_TABLE = [
  { service: 'scheduler', prefixes: ['/agent-webhooks', '/webhook-trigger', '/schedules', '/http-schedules'] },
  { service: 'agent', prefixes: ['/v3/agents', '/v3/inference', '/v3/providers', '/v3/tools', '/v3/sessions'] },
  { service: 'rag', prefixes: ['/v3/rag', '/v3/train'] },
  { service: 'rai', prefixes: ['/v1/rai'] },
  { service: 'voice', prefixes: ['/v1/transcripts'] },
  { service: 'graph', prefixes: ['/v4/knowledge_graph'] },
  { service: 'ocr', prefixes: ['/extract'] },
] as const;

export type ServiceName = (typeof ROUTE_TABLE)[number]['service'];

/** The service a path belongs to: a prefix followed by nothing, `/` or `?`; undefined when none claims it. */
export function serviceFor(path: string): ServiceName | undefined {
  for (const route of ROUTE_TABLE) {
    for (const prefix of route.prefixes) {
      if (path === prefix || path.startsWith(`${prefix}/`)) return route.service;
    }
  }
  return undefined;
}
