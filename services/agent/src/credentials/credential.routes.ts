import type { Request } from 'express';

import { isInternalCall, principalOf } from '@platform/auth';
import { AppError, NotFoundError } from '@platform/errors';
import { route, type Route } from '@platform/http';

import {
  createBody,
  credential,
  credentialCreated,
  credentialList,
  credentialPath,
  credentialUpdated,
  listQuery,
  openedCredential,
  typePath,
  typeProviderPath,
  updateBody,
} from './credential.schemas';
import type { CredentialService } from './credential.service';
import type { CredentialUpdated } from './credential.types';

/** The path's credential id as sent (a malformed one is simply not found). */
const credentialIdOf = (req: Request): string => String(req.params.credential_id);

const NOT_FOUND = 'Credential not found';
const listed = { '200': { description: 'Credentials, secrets masked', body: credentialList } };

/**
 * /v3/providers/credentials routes. The fixed paths (type/, user/) come before the `{credential_id}` ones; a
 * malformed credential id is simply not found (404), so it is documented, not checked.
 */
export const credentialRoutes: Route<CredentialService>[] = [
  route({
    method: 'post',
    path: '/v3/providers/credentials',
    summary: 'Store a provider credential (encrypted at rest)',
    body: createBody,
    responses: { '201': { description: 'Created', body: credentialCreated } },
    handle: async (service: CredentialService, { req, body }) => ({
      message: 'Credential created successfully',
      credential_id: await service.create(principalOf(req), body),
    }),
  }),
  route({
    method: 'get',
    path: '/v3/providers/credentials',
    summary: "List the caller's credentials, secrets masked",
    query: listQuery,
    responses: listed,
    handle: (service: CredentialService, { req, query }) => service.list(principalOf(req), {}, query.skip, query.limit),
  }),
  route({
    method: 'get',
    path: '/v3/providers/credentials/type/{type}',
    summary: "The caller's credentials of a type, secrets masked",
    params: typePath,
    query: listQuery,
    responses: listed,
    handle: (service: CredentialService, { req, params, query }) =>
      service.list(principalOf(req), { type: params.type }, query.skip, query.limit),
  }),
  route({
    method: 'get',
    path: '/v3/providers/credentials/user/{type}/{provider_id}',
    summary: "The caller's credentials of a type and provider, secrets masked",
    params: typeProviderPath,
    query: listQuery,
    responses: listed,
    handle: (service: CredentialService, { req, params, query }) =>
      service.list(principalOf(req), params, query.skip, query.limit),
  }),
  route({
    method: 'get',
    path: '/v3/providers/credentials/{credential_id}',
    summary: 'Get a credential, secret masked',
    paramsDoc: credentialPath,
    responses: { '200': { description: 'Credential', body: credential }, '404': NOT_FOUND },
    handle: (service: CredentialService, { req }) => service.get(principalOf(req), credentialIdOf(req)),
  }),
  route({
    method: 'put',
    path: '/v3/providers/credentials/{credential_id}',
    summary: 'Update a credential (merge; masked values keep the stored secret)',
    paramsDoc: credentialPath,
    body: updateBody,
    responses: { '200': { description: 'Updated', body: credentialUpdated }, '404': NOT_FOUND },
    handle: async (service: CredentialService, { req, body }) => {
      await service.update(principalOf(req), credentialIdOf(req), body);
      const answer: CredentialUpdated = {
        message: 'Credential updated successfully',
        credential_id: credentialIdOf(req),
      };
      return answer;
    },
  }),
  // Internal only (another service of the platform, on behalf of the owner): the key unsealed. Never logged.
  route({
    method: 'post',
    path: '/v3/providers/credentials/{credential_id}/open',
    summary: "Open a credential: its key unsealed, for another service calling the provider on the owner's behalf",
    description:
      "Internal: only the platform's services call it (x-internal-secret + x-on-behalf-of-user/-org); an API key gets 404.",
    paramsDoc: credentialPath,
    responses: { '200': { description: 'The credential, key unsealed', body: openedCredential }, '404': NOT_FOUND },
    handle: async (service: CredentialService, { req }) => {
      if (!isInternalCall(req)) throw new AppError(404, 'Not Found'); // as the unknown route it is to them
      const opened = await service.open(principalOf(req), credentialIdOf(req));
      if (!opened) throw new NotFoundError('Credential');
      return opened;
    },
  }),
  route({
    method: 'delete',
    path: '/v3/providers/credentials/{credential_id}',
    summary: 'Delete a credential',
    paramsDoc: credentialPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    handle: async (service: CredentialService, { req }) => {
      await service.delete(principalOf(req), credentialIdOf(req));
    },
  }),
];
