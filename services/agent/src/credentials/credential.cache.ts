import { ownerKey } from '@platform/db';
import { plainCopy, type ReadCache } from '@platform/queue';

import type { CredentialRepository } from './credential.repository';
import type { CredentialRecord } from './credential.types';

/**
 * The credential repository with `get` (read by every run, to open the provider key) cached, still sealed: the key
 * is opened per use. Updating or deleting a credential drops it here and in every replica.
 */
export function withCredentialCache(
  repo: CredentialRepository,
  cache: ReadCache<CredentialRecord>,
): CredentialRepository {
  return {
    ...repo,
    async get(owner, id) {
      const credential = await cache.get(id, ownerKey(owner), () => repo.get(owner, id));
      return credential && plainCopy(credential);
    },
    update: (owner, id, changes, now) => cache.changed(id, repo.update(owner, id, changes, now)),
    delete: (owner, id) => cache.changed(id, repo.delete(owner, id)),
  };
}
