import { ownerKey } from '@platform/db';
import type { ReadCache } from '@platform/queue';

import type { SessionRepository } from './session.repository';
import type { NewSession, Owner } from './session.types';

/** The cache's id of an owner's session (owner and session id both, so two owners' "default" never collide). */
const keyOf = (owner: Owner, sessionId: string) => `${ownerKey(owner)}\u0000${sessionId}`;

/** The session repository and the turns' way of making sure of a record, remembered per replica. */
export interface KnownSessionRepository extends SessionRepository {
  /**
   * `ensure`, skipped for a session this replica made sure of within the cache's TTL: the turns of a conversation
   * after its first add no write.
   */
  ensureOnce(owner: Owner, s: NewSession): Promise<void>;
}

/**
 * The session repository with the records that turns made sure of remembered. Deleting a session forgets it here and
 * in every replica (the change bus), so the turn after a delete makes the record again; a lost message is bounded by
 * the TTL. Everything else (`ensure` included) goes to the store.
 */
export function withKnownSessions(repo: SessionRepository, cache: ReadCache<true>): KnownSessionRepository {
  return {
    ...repo,
    async ensureOnce(owner, s) {
      await cache.get(keyOf(owner, s.sessionId), '', async () => {
        await repo.ensure(owner, s);
        return true;
      });
    },
    delete: (owner, sessionId) => cache.changed(keyOf(owner, sessionId), repo.delete(owner, sessionId)),
  };
}
