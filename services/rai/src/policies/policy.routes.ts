import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import { createBody, listQuery, policyList, policyPath, policySchema, updateBody } from './policy.schemas';
import type { PolicyService } from './policy.service';

const NOT_FOUND = 'Policy not found';
const UNSUPPORTED = 'Body is not application/json';

/** /v1/rai/policies routes. A malformed policy id is simply not found (404), so the path is documented, not checked. */
export const policyRoutes: Route<PolicyService>[] = [
  route({
    method: 'get',
    path: '/v1/rai/policies',
    summary: "The caller's policies, newest first",
    operationId: 'listPolicies',
    query: listQuery,
    responses: { '200': { description: 'A page', body: policyList } },
    handle: (service: PolicyService, { req, query }) => service.list(principalOf(req), query),
  }),
  route({
    method: 'post',
    path: '/v1/rai/policies',
    summary: 'Create a policy',
    operationId: 'createPolicy',
    body: createBody,
    responses: { '201': { description: 'The policy', body: policySchema }, '415': UNSUPPORTED },
    handle: (service: PolicyService, { req, body }) => service.create(principalOf(req), body),
  }),
  route({
    method: 'get',
    path: '/v1/rai/policies/{policy_id}',
    summary: 'Read a policy',
    operationId: 'getPolicy',
    paramsDoc: policyPath,
    responses: { '200': { description: 'The policy', body: policySchema }, '404': NOT_FOUND },
    handle: (service: PolicyService, { req }) => service.get(principalOf(req), String(req.params.policy_id)),
  }),
  route({
    method: 'put',
    path: '/v1/rai/policies/{policy_id}',
    summary: 'Update a policy: each field or section given replaces it',
    operationId: 'updatePolicy',
    paramsDoc: policyPath,
    body: updateBody,
    responses: { '200': { description: 'The policy', body: policySchema }, '404': NOT_FOUND, '415': UNSUPPORTED },
    handle: (service: PolicyService, { req, body }) =>
      service.update(principalOf(req), String(req.params.policy_id), body),
  }),
  route({
    method: 'delete',
    path: '/v1/rai/policies/{policy_id}',
    summary: 'Delete a policy',
    operationId: 'deletePolicy',
    paramsDoc: policyPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    handle: (service: PolicyService, { req }) => service.delete(principalOf(req), String(req.params.policy_id)),
  }),
];
