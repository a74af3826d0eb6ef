import { Router } from 'express';

import { isInternalCall, principalOf } from '@platform/auth';
import { AppError, NotFoundError } from '@platform/errors';
import { validate } from '@platform/http';

import { createBody, listQuery, typePath, typeProviderPath, updateBody } from './credential.schemas';
import type { CredentialService } from './credential.service';
import type { CredentialUpdated } from './credential.types';

const page = (query: unknown) => validate(listQuery, query, 'query');

/** /v3/providers/credentials routes. The fixed paths (type/, user/) come before the `{credential_id}` ones. */
export function createCredentialRoutes(service: CredentialService): Router {
  const r = Router();
  r.post('/v3/providers/credentials', async (req, res) => {
    const input = validate(createBody, req.body, 'body');
    res.status(201).json({
      message: 'Credential created successfully',
      credential_id: await service.create(principalOf(req), input),
    });
  });
  r.get('/v3/providers/credentials', async (req, res) => {
    const { skip, limit } = page(req.query);
    res.json(await service.list(principalOf(req), {}, skip, limit));
  });
  r.get('/v3/providers/credentials/type/:type', async (req, res) => {
    const { type } = validate(typePath, req.params, 'path');
    const { skip, limit } = page(req.query);
    res.json(await service.list(principalOf(req), { type }, skip, limit));
  });
  r.get('/v3/providers/credentials/user/:type/:provider_id', async (req, res) => {
    const filter = validate(typeProviderPath, req.params, 'path');
    const { skip, limit } = page(req.query);
    res.json(await service.list(principalOf(req), filter, skip, limit));
  });
  r.get('/v3/providers/credentials/:credentialId', async (req, res) => {
    res.json(await service.get(principalOf(req), req.params.credentialId));
  });
  r.put('/v3/providers/credentials/:credentialId', async (req, res) => {
    const update = validate(updateBody, req.body, 'body');
    await service.update(principalOf(req), req.params.credentialId, update);
    const body: CredentialUpdated = {
      message: 'Credential updated successfully',
      credential_id: req.params.credentialId,
    };
    res.json(body);
  });
  // Internal only (another service of the platform, on behalf of the owner): the key unsealed. Never logged.
  r.post('/v3/providers/credentials/:credentialId/open', async (req, res) => {
    if (!isInternalCall(req)) throw new AppError(404, 'Not Found'); // as the unknown route it is to them
    const opened = await service.open(principalOf(req), req.params.credentialId);
    if (!opened) throw new NotFoundError('Credential');
    res.json(opened);
  });
  r.delete('/v3/providers/credentials/:credentialId', async (req, res) => {
    await service.delete(principalOf(req), req.params.credentialId);
    res.status(204).end();
  });
  return r;
}
