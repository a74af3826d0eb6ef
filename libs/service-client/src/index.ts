/** Service-to-service calls of the platform: one client for every internal call (headers, limits, errors). */
export {
  createServiceClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type CallOwner,
  type ServiceCall,
  type ServiceClient,
  type ServiceClientDeps,
  type ServiceTarget,
  type StatusHandler,
} from './service-client';
export { operationCall, siblingOperation, siblingOperations, type SiblingOperation } from './operation';
