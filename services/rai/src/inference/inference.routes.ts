import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import { evaluation, inferenceBody } from '../policies/policy.schemas';
import type { InferenceService } from './inference.service';

/** POST /v1/rai/inference. */
export const inferenceRoutes: Route<InferenceService>[] = [
  route({
    method: 'post',
    path: '/v1/rai/inference',
    summary: 'Evaluate a text against a policy',
    operationId: 'evaluateText',
    body: inferenceBody,
    responses: {
      '200': { description: 'The verdict', body: evaluation },
      '404': 'Policy not found',
      '415': 'Body is not application/json',
    },
    handle: (service: InferenceService, { req, body }) => service.check(principalOf(req), body),
  }),
];
