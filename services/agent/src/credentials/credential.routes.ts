import { Router } from 'express';
import Joi from 'joi';
import { principalOf } from '@platform/auth';
import { pageQuery, validate } from '@platform/http';
import type { CredentialService } from './credential.service';
import type { CredentialInput } from './credential.types';

const body = Joi.object({
  name: Joi.string().trim().min(1).max(200).required(),
  provider_id: Joi.string().trim().min(1).max(100).required(),
  credentials: Joi.object({
    api_key: Joi.string().min(1).max(4096).required(),
    base_url: Joi.string().uri({ scheme: ['http', 'https'] }).max(2048).allow(null),
  }).required(),
});

/** /v3/providers/credentials routes. */
export function createCredentialRoutes(service: CredentialService): Router {
  const r = Router();
  r.post('/v3/providers/credentials', async (req, res) => {
    const input = validate<CredentialInput>(body, req.body, 'body');
    res.status(201).json({ credential_id: await service.create(principalOf(req), input) });
  });
  r.get('/v3/providers/credentials', async (req, res) => {
    const { skip, limit } = validate<{ skip: number; limit: number }>(Joi.object(pageQuery), req.query, 'query');
    res.json(await service.list(principalOf(req), skip, limit));
  });
  r.get('/v3/providers/credentials/:credentialId', async (req, res) => {
    res.json(await service.get(principalOf(req), req.params.credentialId));
  });
  r.delete('/v3/providers/credentials/:credentialId', async (req, res) => {
    await service.delete(principalOf(req), req.params.credentialId);
    res.status(204).end();
  });
  return r;
}
