import { NotFoundError, ValidationError } from '@platform/errors';
import { MASK, maskValues, type SecretBox } from '@platform/secrets';

import type { CredentialRepository } from './credential.repository';
import {
  CLEAR_CREDENTIAL_KEYS,
  type CredentialChanges,
  type CredentialExtras,
  type CredentialFilter,
  type CredentialInput,
  type CredentialList,
  type CredentialRecord,
  type CredentialUpdate,
  type CredentialView,
  type OpenedCredential,
  type Owner,
} from './credential.types';

export interface CredentialServiceDeps {
  repo: CredentialRepository;
  box: SecretBox;
  clock: () => Date;
}

function view(c: CredentialRecord): CredentialView {
  return {
    credential_id: c.credential_id,
    name: c.name,
    provider_id: c.provider_id,
    type: c.type,
    credentials: {
      api_key: c.api_key_sealed === null ? null : MASK,
      base_url: c.base_url,
      ...c.extra,
      ...maskValues(c.extra_sealed),
    },
    meta_data: c.meta_data,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** A value that means "keep what is stored": missing, or the mask a read shows. */
const keeps = (v: unknown) => v === undefined || v === MASK;

/**
 * The provider-specific keys of a `credentials` object (beside api_key and base_url) to store: the clear ones and
 * nulls as sent, the others sealed. On an update (`merge`) a masked one is left out: it keeps what is stored.
 */
function extrasOf(box: SecretBox, credentials: Record<string, unknown>, merge: boolean): CredentialExtras {
  const out: CredentialExtras = { extra: {}, extra_sealed: {} };
  for (const [k, v] of Object.entries(credentials)) {
    if (k === 'api_key' || k === 'base_url' || (merge && v === MASK)) continue;
    if (v === null) out.extra[k] = null;
    else if (typeof v !== 'string')
      continue; // validated: a string or null
    else if (CLEAR_CREDENTIAL_KEYS.has(k)) out.extra[k] = v;
    else out.extra_sealed[k] = box.encrypt(v);
  }
  return out;
}

/** Provider credentials: sealed on the way in, masked on the way out, opened only for inference. */
export function createCredentialService({ repo, box, clock }: CredentialServiceDeps) {
  return {
    async create(owner: Owner, input: CredentialInput): Promise<string> {
      const { api_key } = input.credentials;
      const keyed = Object.keys(input.credentials).some((k) => k !== 'api_key' && k !== 'base_url');
      if (api_key === undefined && !keyed)
        throw ValidationError.field(
          ['body', 'credentials', 'api_key'],
          'Field required (a credential without api_key has provider-specific keys, e.g. AWS keys)',
          'missing',
        );
      const record = await repo.create(
        owner,
        {
          name: input.name,
          provider_id: input.provider_id,
          type: input.type,
          api_key_sealed: api_key === undefined ? null : box.encrypt(api_key),
          base_url: input.credentials.base_url ?? null,
          meta_data: input.meta_data,
          ...extrasOf(box, input.credentials, false),
        },
        clock(),
      );
      return record.credential_id;
    },
    async get(owner: Owner, id: string): Promise<CredentialView> {
      const c = await repo.get(owner, id);
      if (!c) throw new NotFoundError('Credential');
      return view(c);
    },
    /** The owner's credentials, optionally only those of a type and provider; secrets masked. */
    async list(owner: Owner, filter: CredentialFilter, skip: number, limit: number): Promise<CredentialList> {
      const { items, total } = await repo.list(owner, filter, skip, limit);
      return { credentials: items.map(view), total };
    },
    /** Merges `update` into the stored credential: credential keys missing or masked keep their stored value. */
    async update(owner: Owner, id: string, update: CredentialUpdate): Promise<void> {
      const changes: CredentialChanges = {};
      if (update.name !== undefined) changes.name = update.name;
      if (update.type !== undefined) changes.type = update.type;
      if (update.meta_data !== undefined) changes.meta_data = update.meta_data;
      const { api_key, base_url } = update.credentials ?? {};
      if (api_key !== undefined && !keeps(api_key)) changes.api_key_sealed = box.encrypt(api_key);
      if (!keeps(base_url)) changes.base_url = base_url ?? null;
      if (update.credentials) Object.assign(changes, extrasOf(box, update.credentials, true));
      if (!(await repo.update(owner, id, changes, clock()))) throw new NotFoundError('Credential');
    },
    async delete(owner: Owner, id: string): Promise<void> {
      if (!(await repo.delete(owner, id))) throw new NotFoundError('Credential');
    },
    /** The credential with its key opened, for the provider call; null when the owner has none with that id. */
    async open(owner: Owner, id: string): Promise<OpenedCredential | null> {
      const c = await repo.get(owner, id);
      if (!c) return null;
      return {
        credential_id: c.credential_id,
        provider_id: c.provider_id,
        api_key: c.api_key_sealed === null ? null : box.decrypt(c.api_key_sealed),
        base_url: c.base_url,
      };
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
