import { Router } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import { createBody, listQuery, updateBody } from './policy.schemas';
import type { PolicyService } from './policy.service';

/** /v1/rai/policies routes. */
export function createPolicyRoutes(service: PolicyService): Router {
  const r = Router();
  r.get('/v1/rai/policies', async (req, res) => {
    res.json(await service.list(principalOf(req), validate(listQuery, req.query, 'query')));
  });
  r.post('/v1/rai/policies', async (req, res) => {
    const input = validate(createBody, req.body, 'body');
    res.status(201).json(await service.create(principalOf(req), input));
  });
  r.get('/v1/rai/policies/:id', async (req, res) => {
    res.json(await service.get(principalOf(req), req.params.id));
  });
  r.put('/v1/rai/policies/:id', async (req, res) => {
    const patch = validate(updateBody, req.body, 'body');
    res.json(await service.update(principalOf(req), req.params.id, patch));
  });
  r.delete('/v1/rai/policies/:id', async (req, res) => {
    await service.delete(principalOf(req), req.params.id);
    res.status(204).end();
  });
  return r;
}
