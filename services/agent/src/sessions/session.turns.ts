import type { Logger } from '@platform/logger';

import type { MemoryRepository } from '../inference/memory.repository';
import type { KnownSessionRepository } from './session.cache';

/**
 * Memory whose stored turns also give their session a record, so that a session never created through
 * `POST /v3/sessions` is listed too: beside the turn's own insert, at most one insert of the record (batched with
 * those of concurrent turns, skipped for sessions this replica already made sure of). The record is a convenience
 * of the listing: if it cannot be written, the turn is still stored and answered (the session is still read by id,
 * from its messages) and the next turn tries again.
 */
export function withSessionRecords(
  memory: MemoryRepository,
  sessions: Pick<KnownSessionRepository, 'ensureOnce'>,
  logger: Logger,
): MemoryRepository {
  return {
    ...memory,
    async appendTurn(owner, turn) {
      const record = sessions
        .ensureOnce(owner, { sessionId: turn.sessionId, agentId: turn.agentId, metadata: {}, at: turn.startedAt })
        .catch((err: unknown) =>
          logger.warn('session record not stored; the session is listed once a later turn stores it', {
            session_id: turn.sessionId,
            err: (err as Error).message,
          }),
        );
      await Promise.all([memory.appendTurn(owner, turn), record]);
    },
  };
}
