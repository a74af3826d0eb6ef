export { generateApiKey, hashApiKey, isWellFormedApiKey, PREFIX_LENGTH } from './api-key';
export { createApiKeyRepository, type ApiKeyRepository, type ApiKeyRecord, type Principal } from './api-key.repository';
export { withBearerKey } from './bearer-key';
export { createApiKeyAuth, principalOf, type ApiKeyAuth, type ApiKeyAuthDeps, type KeyLookup } from './auth.middleware';
export {
  INTERNAL_HEADERS,
  internalCallHeaders,
  isInternalCall,
  withOnBehalfOf,
  type OnBehalfAuthOptions,
} from './on-behalf';
