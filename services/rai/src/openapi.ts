/**
 * OpenAPI description of the rai service, served at /openapi.json and rendered at /docs. The shapes come from the
 * joi schemas (`policies/policy.schemas.ts`); only route-level facts (summaries, status codes) are written here.
 */
import {
  apiKeySecurityScheme,
  errorSchemas,
  jsonContent as json,
  notFoundResponse,
  parametersOf,
  refTo,
  withStandardResponses as responses,
  schemaComponents,
} from '@platform/http';

import {
  createBody,
  evaluation,
  inferenceBody,
  listQuery,
  policyList,
  policyPath,
  policySchema,
  updateBody,
} from './policies/policy.schemas';

const policyId = parametersOf(policyPath, 'path');
const policy = json(refTo(policySchema));
const notFound = notFoundResponse('Policy not found');
const unsupported = {
  '415': { description: 'Body is not application/json', ...json({ $ref: '#/components/schemas/Error' }) },
};

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'RAI service',
    version: '1.0.0',
    description: 'Responsible-AI policies and the evaluation of texts against them.',
  },
  components: {
    securitySchemes: apiKeySecurityScheme,
    schemas: {
      ...errorSchemas,
      ...schemaComponents({
        request: [createBody, updateBody, inferenceBody],
        response: [policySchema, policyList, evaluation],
      }),
    },
  },
  security: [{ apiKey: [] }],
  paths: {
    '/v1/rai/policies': {
      get: {
        summary: "The caller's policies, newest first",
        operationId: 'listPolicies',
        parameters: parametersOf(listQuery, 'query'),
        responses: responses({ '200': { description: 'A page', ...json(refTo(policyList)) } }),
      },
      post: {
        summary: 'Create a policy',
        operationId: 'createPolicy',
        requestBody: { required: true, ...json(refTo(createBody)) },
        responses: responses({ '201': { description: 'The policy', ...policy }, ...unsupported }),
      },
    },
    '/v1/rai/policies/{policy_id}': {
      get: {
        summary: 'Read a policy',
        operationId: 'getPolicy',
        parameters: policyId,
        responses: responses({ '200': { description: 'The policy', ...policy }, ...notFound }),
      },
      put: {
        summary: 'Update a policy: each field or section given replaces it',
        operationId: 'updatePolicy',
        parameters: policyId,
        requestBody: { required: true, ...json(refTo(updateBody)) },
        responses: responses({ '200': { description: 'The policy', ...policy }, ...notFound, ...unsupported }),
      },
      delete: {
        summary: 'Delete a policy',
        operationId: 'deletePolicy',
        parameters: policyId,
        responses: responses({ '204': { description: 'Deleted' }, ...notFound }),
      },
    },
    '/v1/rai/inference': {
      post: {
        summary: 'Evaluate a text against a policy',
        operationId: 'evaluateText',
        requestBody: { required: true, ...json(refTo(inferenceBody)) },
        responses: responses({
          '200': { description: 'The verdict', ...json(refTo(evaluation)) },
          ...notFoundResponse('Policy not found'),
          ...unsupported,
        }),
      },
    },
  },
};
