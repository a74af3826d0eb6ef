export { createHttpApp, requestContext, type HttpAppOptions, type ReadinessCheck } from './app';
export { errorHandler, notFoundHandler, type ErrorExtras } from './error-handler';
export { createMetrics } from './metrics';
export { listen, onShutdownSignal, startMain, type RunningServer } from './server';
export { MAX_ERROR_MESSAGE_CHARS, validate, toFieldErrors, type Location, type Validated } from './validate';
export { pageQuery, pageSchema } from './paging.schemas';
export type { Page } from './paging.schemas.types';
export {
  DEFAULT_RATE_LIMITS,
  apiKeySubject,
  chainMiddleware,
  createRateLimit,
  rateLimitPerApiKey,
  rateLimitPerParam,
  type RateLimit,
  type RateLimitOptions,
} from './rate-limit';
export { apiKeySecurityScheme, errorSchemas, jsonContent, notFoundResponse, withStandardResponses } from './openapi';
export {
  JSON_CONTENT_TYPES,
  UNSUPPORTED_MEDIA_TYPE,
  UNSUPPORTED_MULTIPART_TYPE,
  hasRoute,
  jsonBodyParser,
  limitBytes,
  rejectBadJson,
  rejectBadUrl,
  requireContentType,
  requireJsonContentType,
} from './input-guards';
export {
  MAX_INPUT_ERRORS,
  MAX_JSON_DEPTH,
  inspectInput,
  parseJsonBytes,
  stringFault,
  type StringFault,
} from './input-inspect';
export {
  classNameOf,
  jsonSchemaOf,
  OPENAPI_ALTERATION,
  parametersOf,
  refTo,
  schemaComponents,
  type Side,
} from './schema-docs';
export { uploadedFile, uploadMiddleware, type UploadedFile, type UploadOptions } from './upload';
export {
  MAX_CONCURRENCY,
  MAX_URL_LENGTH,
  boundedJson,
  httpUrlField,
  jsonDepth,
  maxConcurrencyField,
  type JsonBounds,
} from './fields';
export {
  expressPath,
  mountRoutes,
  multipartBody,
  openapiPaths,
  operationOf,
  route,
  serviceDocument,
  type Route,
  type RouteDef,
  type RouteInput,
  type RouteResponse,
  type ServiceDocumentOptions,
} from './route-table';
