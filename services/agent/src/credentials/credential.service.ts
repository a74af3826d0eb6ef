import { NotFoundError } from '@platform/errors';
import { MASK, type SecretBox } from '@platform/secrets';
import type { CredentialRepository } from './credential.repository';
import type { CredentialInput, CredentialRecord, CredentialView, OpenedCredential, Owner } from './credential.types';

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
    credentials: { api_key: MASK, base_url: c.base_url },
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** Provider credentials: sealed on the way in, masked on the way out, opened only for inference. */
export function createCredentialService({ repo, box, clock }: CredentialServiceDeps) {
  return {
    async create(owner: Owner, input: CredentialInput): Promise<string> {
      const record = await repo.create(
        owner,
        {
          name: input.name,
          provider_id: input.provider_id,
          api_key_sealed: box.encrypt(input.credentials.api_key),
          base_url: input.credentials.base_url ?? null,
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
    async list(owner: Owner, skip: number, limit: number): Promise<{ credentials: CredentialView[]; total: number }> {
      const { items, total } = await repo.list(owner, skip, limit);
      return { credentials: items.map(view), total };
    },
    async delete(owner: Owner, id: string): Promise<void> {
      if (!(await repo.delete(owner, id))) throw new NotFoundError('Credential');
    },
    /** The credential with its key opened, for the provider call; null when the owner has none with that id. */
    async open(owner: Owner, id: string): Promise<OpenedCredential | null> {
      const c = await repo.get(owner, id);
      if (!c) return null;
      return { credential_id: c.credential_id, provider_id: c.provider_id, api_key: box.decrypt(c.api_key_sealed), base_url: c.base_url };
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
