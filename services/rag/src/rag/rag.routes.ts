import type { Request } from 'express';

import { isInternalCall, principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import type { KnowledgeService } from '../knowledge/knowledge.service';
import { configPath, listQuery, ragBody, ragConfig, ragList, ragPatch, userPath } from './rag.schemas';
import type { RagService } from './rag.service';

/** What the /v3/rag routes need: the configurations, and the knowledge base a deleted configuration takes with it. */
export interface RagRouteDeps {
  rag: RagService;
  knowledge: Pick<KnowledgeService, 'drop'>;
}

/** The API key the request authenticated with; none on the internal path (its principal comes from headers). */
const authenticatedKey = (req: Request): string | undefined => (isInternalCall(req) ? undefined : req.get('x-api-key'));

const NOT_FOUND = 'RAG configuration not found';
const CONFLICT = 'The caller already has a configuration with that collection_name';
const UNSUPPORTED = 'Body is not application/json';
const config = (description: string) => ({ description, body: ragConfig });
const page = { description: 'A page', body: ragList };

/** /v3/rag routes. A malformed configuration id is simply not found (404), so that path is documented, not checked. */
export const ragRoutes: Route<RagRouteDeps>[] = [
  route({
    method: 'post',
    path: '/v3/rag/',
    summary: 'Create a RAG configuration',
    operationId: 'createRag',
    body: ragBody,
    responses: { '200': config('The configuration with its id'), '409': CONFLICT, '415': UNSUPPORTED },
    handle: ({ rag }: RagRouteDeps, { req, body }) => rag.create(principalOf(req), body),
  }),
  route({
    method: 'get',
    path: '/v3/rag/',
    summary: "List the caller's RAG configurations, newest first",
    operationId: 'listRag',
    query: listQuery,
    responses: { '200': page },
    handle: ({ rag }: RagRouteDeps, { req, query }) => rag.list(principalOf(req), query),
  }),
  route({
    method: 'get',
    path: '/v3/rag/user/{user_id}/',
    summary: "List the caller's configurations (user_id: the caller's user id or own API key, else 403)",
    operationId: 'listRagOfUser',
    params: userPath,
    query: listQuery,
    responses: { '200': page },
    handle: ({ rag }: RagRouteDeps, { req, params, query }) =>
      rag.listOfUser(principalOf(req), params.user_id, query, authenticatedKey(req)),
  }),
  route({
    method: 'get',
    path: '/v3/rag/{config_id}/',
    summary: 'Read a RAG configuration',
    operationId: 'getRag',
    paramsDoc: configPath,
    responses: { '200': config('The configuration'), '404': NOT_FOUND },
    handle: ({ rag }: RagRouteDeps, { req }) => rag.get(principalOf(req), String(req.params.config_id)),
  }),
  route({
    method: 'put',
    path: '/v3/rag/{config_id}/',
    summary: 'Update a RAG configuration: only the fields sent change (an explicit null clears a nullable field)',
    description:
      'Credential ids sent are checked like on create (422); a collection_name the caller already uses → 409.',
    operationId: 'updateRag',
    paramsDoc: configPath,
    body: ragPatch,
    responses: { '200': config('The configuration'), '404': NOT_FOUND, '409': CONFLICT, '415': UNSUPPORTED },
    handle: ({ rag }: RagRouteDeps, { req, body }) => rag.update(principalOf(req), String(req.params.config_id), body),
  }),
  route({
    method: 'delete',
    path: '/v3/rag/{config_id}/',
    summary: 'Delete a RAG configuration',
    operationId: 'deleteRag',
    paramsDoc: configPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    // The configuration's knowledge base goes first (documents, chunks, vectors); 404 as the delete would.
    handle: async ({ rag, knowledge }: RagRouteDeps, { req }) => {
      const owner = principalOf(req);
      const id = String(req.params.config_id);
      await knowledge.drop(await rag.get(owner, id), owner);
      await rag.delete(owner, id);
    },
  }),
];
