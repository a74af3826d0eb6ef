/** OpenAPI description of the rai service, served at /openapi.json and rendered at /docs. */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  withStandardResponses as responses,
} from '@platform/http';

import { policySchemas } from './policies/policy.openapi';

const policyId = {
  name: 'policy_id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[0-9a-f]{24}$' },
};
const paging = [
  { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const policy = json(ref('Policy'));
const notFound = notFoundResponse('Policy not found');
const unsupported = { '415': { description: 'Body is not application/json', ...json(ref('Error')) } };

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'RAI service',
    version: '1.0.0',
    description: 'Responsible-AI policies and the evaluation of texts against them.',
  },
  components: { securitySchemes: apiKeySecurityScheme, schemas: { ...errorSchemas, ...policySchemas } },
  security: [{ apiKey: [] }],
  paths: {
    '/v1/rai/policies': {
      get: {
        summary: "The caller's policies, newest first",
        operationId: 'listPolicies',
        parameters: paging,
        responses: responses({ '200': { description: 'A page', ...json(ref('PolicyList')) } }),
      },
      post: {
        summary: 'Create a policy',
        operationId: 'createPolicy',
        requestBody: { required: true, ...json(ref('PolicyBody')) },
        responses: responses({ '201': { description: 'The policy', ...policy }, ...unsupported }),
      },
    },
    '/v1/rai/policies/{policy_id}': {
      get: {
        summary: 'Read a policy',
        operationId: 'getPolicy',
        parameters: [policyId],
        responses: responses({ '200': { description: 'The policy', ...policy }, ...notFound }),
      },
      put: {
        summary: 'Update a policy: each field or section given replaces it',
        operationId: 'updatePolicy',
        parameters: [policyId],
        requestBody: { required: true, ...json(ref('PolicyUpdate')) },
        responses: responses({ '200': { description: 'The policy', ...policy }, ...notFound, ...unsupported }),
      },
      delete: {
        summary: 'Delete a policy',
        operationId: 'deletePolicy',
        parameters: [policyId],
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    '/v1/rai/inference': {
      post: {
        summary: 'Evaluate a text against a policy',
        operationId: 'evaluateText',
        requestBody: { required: true, ...json(ref('InferenceBody')) },
        responses: responses({
          '200': { description: 'The verdict', ...json(ref('Evaluation')) },
          ...notFoundResponse('Policy not found'),
          ...unsupported,
        }),
      },
    },
  },
};
