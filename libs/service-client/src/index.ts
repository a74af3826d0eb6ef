/** Service-to-service calls of the platform: one client for every internal call (headers, limits, errors). */
export {
  createServiceClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  ServiceUnreachableError,
  type CallAuth,
  type CallOwner,
  type ServiceAnswer,
  type ServiceCall,
  type ServiceRequest,
  type ServiceClient,
  type ServiceClientDeps,
  type ServiceTarget,
  type StatusHandler,
} from './service-client';
export {
  operationCall,
  siblingOperation,
  siblingOperations,
  type Method,
  type MethodOf,
  type PathOf,
  type PathParams,
  type ResponseOf,
  type Service,
  type SiblingOperation,
} from './operation';
