import type { Request } from 'express';

import { principalOf } from '@platform/auth';
import { route, type Route } from '@platform/http';

import {
  METADATA_LIMITS,
  session,
  sessionCreate,
  sessionHistory,
  sessionHistoryQuery,
  sessionIdPath,
  sessionList,
  sessionListQuery,
  sessionPatch,
} from './session.schemas';
import type { SessionService } from './session.service';

/** The path's session id as sent (the service answers 404 for one no session can have). */
const sessionIdOf = (req: Request) => String(req.params.session_id);

const NOT_FOUND = 'Session not found (also for another owner’s, and for an id over 200 characters)';
const sessionAnswer = { description: 'The session', body: session };
const metadataBounds = `Metadata: at most ${METADATA_LIMITS.maxKeys} keys and ${METADATA_LIMITS.maxBytes} bytes as JSON (422).`;

/** /v3/sessions: sessions over the stored chat turns. The session id is documented, not checked (see sessionIdOf). */
export const sessionRoutes: Route<SessionService>[] = [
  route({
    method: 'post',
    path: '/v3/sessions',
    summary: 'Create a session for one of the caller’s agents',
    description: `Chat calls then name its session_id. Sessions also come into being with their first chat turn, without this call. ${metadataBounds}`,
    body: sessionCreate,
    responses: {
      '201': { description: 'Created', body: session },
      '404': 'Agent not found',
      '409': 'The caller has a session with that session_id (created, or chatted in)',
    },
    handle: (service: SessionService, { req, body }) => service.create(principalOf(req), body),
  }),
  route({
    method: 'get',
    path: '/v3/sessions',
    summary: "List the caller's sessions, newest first",
    description: 'Sessions created here and those made by chat turns alike; agent_id keeps those of one agent.',
    query: sessionListQuery,
    responses: { '200': { description: '{sessions, total, limit, offset}', body: sessionList } },
    handle: (service: SessionService, { req, query }) => service.list(principalOf(req), query),
  }),
  route({
    method: 'get',
    path: '/v3/sessions/{session_id}',
    summary: 'Get a session',
    description:
      'A session known only by its chat turns is described by its first message (agent, start; metadata {}).',
    paramsDoc: sessionIdPath,
    responses: { '200': sessionAnswer, '404': NOT_FOUND },
    handle: (service: SessionService, { req }) => service.get(principalOf(req), sessionIdOf(req)),
  }),
  route({
    method: 'patch',
    path: '/v3/sessions/{session_id}',
    summary: "Change a session's metadata (JSON merge patch)",
    paramsDoc: sessionIdPath,
    body: sessionPatch,
    responses: {
      '200': sessionAnswer,
      '404': NOT_FOUND,
      '409': 'Other changes kept landing first; nothing was changed',
    },
    handle: (service: SessionService, { req, body }) => service.patch(principalOf(req), sessionIdOf(req), body),
  }),
  route({
    method: 'delete',
    path: '/v3/sessions/{session_id}',
    summary: 'Delete a session and its stored messages (memory no longer sees them)',
    paramsDoc: sessionIdPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    handle: async (service: SessionService, { req }) => {
      await service.delete(principalOf(req), sessionIdOf(req));
    },
  }),
  route({
    method: 'get',
    path: '/v3/sessions/{session_id}/messages',
    summary: "A session's stored messages, newest first",
    paramsDoc: sessionIdPath,
    query: sessionHistoryQuery,
    responses: { '200': { description: '{messages, total, limit, offset}', body: sessionHistory }, '404': NOT_FOUND },
    handle: (service: SessionService, { req, query }) => service.messages(principalOf(req), sessionIdOf(req), query),
  }),
];
