import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { inferenceBody } from '../policies/policy.schemas';
import type { InferenceService } from './inference.service';

/** POST /v1/rai/inference. */
export function createInferenceRoutes(service: InferenceService): Router {
  const r = Router();
  r.post('/v1/rai/inference', async (req, res) => {
    const input = validate(inferenceBody, req.body, 'body');
    res.json(await service.check(principalOf(req), input));
  });
  return r;
}
