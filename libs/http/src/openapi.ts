/** Building blocks for a service's OpenAPI document, so every service describes errors the same way. */

/** `{"content": {"application/json": {"schema": ...}}}`. */
export const jsonContent = (schema: object) => ({ content: { 'application/json': { schema } } });

const error = { $ref: '#/components/schemas/Error' };
const validationError = { $ref: '#/components/schemas/ValidationError' };

/** The API's error bodies, as `components.schemas` entries named Error and ValidationError. */
export const errorSchemas = {
  Error: { type: 'object', properties: { detail: { type: 'string' } } },
  ValidationError: {
    type: 'object',
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          properties: { loc: { type: 'array', items: {} }, msg: { type: 'string' }, type: { type: 'string' } },
        },
      },
    },
  },
};

/** The x-api-key security scheme, as a `components.securitySchemes` entry named apiKey. */
export const apiKeySecurityScheme = { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } };

/** `ok` plus the responses every authenticated route can give: 403, 422 and 503. */
export function withStandardResponses(ok: Record<string, object>): Record<string, object> {
  return {
    ...ok,
    '403': { description: 'API key missing or invalid', ...jsonContent(error) },
    '422': { description: 'Validation error', ...jsonContent(validationError) },
    '503': { description: 'A dependency is unreachable', ...jsonContent(error) },
  };
}

/** A 404 response with the Error body. */
export const notFoundResponse = (description: string) => ({ '404': { description, ...jsonContent(error) } });
