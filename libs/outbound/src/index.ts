export { blockedReason, isIpLiteral } from './address';
export { isAllowed, parseAllowHosts, refusedLiteralHost, type AllowEntry } from './allow-list';
export {
  createOutboundClient,
  type OutboundClient,
  type OutboundClientOptions,
  type OutboundRequest,
  type OutboundResponse,
} from './client';
export type { OutboundStreamRequest, OutboundStreamResponse } from './types';
export {
  OutboundBlockedError,
  OutboundError,
  OutboundNetworkError,
  OutboundTimeoutError,
  OutboundTooLargeError,
} from './errors';
export { createGuardedAgents, guardedLookup } from './guard';
