export { createHttpApp, requestContext, type HttpAppOptions, type ReadinessCheck } from './app';
export { errorHandler, notFoundHandler } from './error-handler';
export { createMetrics } from './metrics';
export { listen, onShutdownSignal, type RunningServer } from './server';
export { validate, toFieldErrors, type Location } from './validate';
export { pageQuery, type Page } from './paging';
export { apiKeySecurityScheme, errorSchemas, jsonContent, notFoundResponse, withStandardResponses } from './openapi';
