/**
 * OpenAPI description of the rai service, served at /openapi.json and rendered at /docs. The paths come from the
 * route tables, the shapes from the joi schemas (`policies/policy.schemas.ts`).
 */
import { schemaComponents, serviceDocument } from '@platform/http';

import { inferenceRoutes } from './inference/inference.routes';
import { policyRoutes } from './policies/policy.routes';
import { createBody, evaluation, inferenceBody, policyList, policySchema, updateBody } from './policies/policy.schemas';

export const openapi = serviceDocument({
  title: 'RAI service',
  description: 'Responsible-AI policies and the evaluation of texts against them.',
  schemas: schemaComponents({
    request: [createBody, updateBody, inferenceBody],
    response: [policySchema, policyList, evaluation],
  }),
  routes: [...policyRoutes, ...inferenceRoutes],
});
