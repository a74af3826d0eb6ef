import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { inferenceBody } from '../policies/policy.schemas';
import type { InferenceService } from './inference.service';
import type { InferenceInput } from './inference.types';

/** POST /v1/rai/inference. */
export function createInferenceRoutes(service: InferenceService): Router {
  const r = Router();
  r.post('/v1/rai/inference', async (req, res) => {
    const input = validate<InferenceInput>(inferenceBody, req.body, 'body');
    res.json(await service.check(principalOf(req), input));
  });
  return r;
}
