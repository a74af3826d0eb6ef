/**
 * Typed clients of the platform's services, generated from their OpenAPI 3.1 documents (openapi-typescript) and
 * called with openapi-fetch over @platform/outbound. `src/generated/*.ts` are written by `pnpm --filter @platform/sdk
 * run generate`; never edit them by hand.
 */
import createClient, { type Client } from 'openapi-fetch';

import type { OutboundClient } from '@platform/outbound';

import type { components as AgentComponents, paths as AgentPaths } from './generated/agent';
import type { components as GraphComponents, paths as GraphPaths } from './generated/graph';
import type { components as OcrComponents, paths as OcrPaths } from './generated/ocr';
import type { components as RagComponents, paths as RagPaths } from './generated/rag';
import type { components as RaiComponents, paths as RaiPaths } from './generated/rai';
import type { components as SchedulerComponents, paths as SchedulerPaths } from './generated/scheduler';
import type { components as VoiceComponents, paths as VoicePaths } from './generated/voice';
import { outboundFetch, OutboundFetchRequest, type OutboundFetchOptions } from './outbound-fetch';

export { outboundFetch, OutboundFetchRequest, type OutboundFetchOptions };
export type { Client };
export type {
  AgentComponents,
  AgentPaths,
  GraphComponents,
  GraphPaths,
  OcrComponents,
  OcrPaths,
  RagComponents,
  RagPaths,
};
export type { RaiComponents, RaiPaths, SchedulerComponents, SchedulerPaths, VoiceComponents, VoicePaths };

/** Each service's generated paths, by its folder name under `services/`: what a sibling call is typed from. */
export interface ServicePaths {
  agent: AgentPaths;
  graph: GraphPaths;
  ocr: OcrPaths;
  rag: RagPaths;
  rai: RaiPaths;
  scheduler: SchedulerPaths;
  voice: VoicePaths;
}

export interface ServiceClientOptions extends OutboundFetchOptions {
  /** The service's base URL, e.g. http://agent:3002 (trailing slashes ignored). */
  baseUrl: string;
  /** Every call goes through it (address guard, time limit, size cap): allow the service's host in it. */
  outbound: OutboundClient;
  /** Headers sent on every call (an API key, the on-behalf-of headers). */
  headers?: Record<string, string>;
}

/**
 * A typed client of the service whose document is `Paths`, for API clients of the platform. (Our services call each
 * other through @platform/service-client, typed from the same generated paths.)
 */
export function createTypedClient<Paths extends object>(opts: ServiceClientOptions): Client<Paths> {
  return createClient<Paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    fetch: outboundFetch(opts.outbound, opts),
    Request: OutboundFetchRequest as unknown as typeof Request,
    headers: opts.headers,
  });
}

export const createAgentServiceClient = (opts: ServiceClientOptions) => createTypedClient<AgentPaths>(opts);
export const createGraphServiceClient = (opts: ServiceClientOptions) => createTypedClient<GraphPaths>(opts);
export const createOcrServiceClient = (opts: ServiceClientOptions) => createTypedClient<OcrPaths>(opts);
export const createRagServiceClient = (opts: ServiceClientOptions) => createTypedClient<RagPaths>(opts);
export const createRaiServiceClient = (opts: ServiceClientOptions) => createTypedClient<RaiPaths>(opts);
export const createSchedulerServiceClient = (opts: ServiceClientOptions) => createTypedClient<SchedulerPaths>(opts);
export const createVoiceServiceClient = (opts: ServiceClientOptions) => createTypedClient<VoicePaths>(opts);
