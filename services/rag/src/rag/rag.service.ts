import type { Page } from '@platform/db';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, type FieldError } from '@platform/errors';

import type { CredentialCheck } from '../credentials/credential-check';
import { DuplicateCollectionError, type RagRepository } from './rag.repository';
import { CREDENTIAL_FIELDS, type Owner, type RagConfig, type RagInput, type RagRecord } from './rag.types';

export interface RagServiceDeps {
  repo: RagRepository;
  credentials: CredentialCheck;
  clock: () => Date;
}

const view = ({ org_id: _org, ...rest }: RagRecord): RagConfig => rest;

const conflict = (name: string) =>
  new ConflictError(`A RAG configuration with collection_name "${name}" already exists`);

/** RAG configurations: owner-scoped, one collection name per owner, credential ids of ours checked. */
export function createRagService({ repo, credentials, clock }: RagServiceDeps) {
  /** 422 naming each credential field that names one of our credentials the owner does not have. */
  async function checkCredentials(owner: Owner, input: RagInput): Promise<void> {
    const ours = CREDENTIAL_FIELDS.filter((f) => credentials.isOurs(input[f]));
    const ids = [...new Set(ours.map((f) => input[f]))];
    const owned = new Map(
      await Promise.all(ids.map(async (id) => [id, await credentials.belongsTo(owner, id)] as const)),
    );
    const problems: FieldError[] = ours
      .filter((f) => !owned.get(input[f]))
      .map((f) => ({ loc: ['body', f], msg: `Credential ${input[f]} not found`, type: 'credential_not_found' }));
    if (problems.length > 0) throw new ValidationError(problems);
  }

  async function guard<T>(name: string, write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (err) {
      if (err instanceof DuplicateCollectionError) throw conflict(name);
      throw err;
    }
  }

  return {
    async create(owner: Owner, input: RagInput): Promise<RagConfig> {
      await checkCredentials(owner, input);
      return view(await guard(input.collection_name, repo.create(owner, input, clock())));
    },
    async get(owner: Owner, id: string): Promise<RagConfig> {
      const r = await repo.get(owner, id);
      if (!r) throw new NotFoundError('RAG configuration');
      return view(r);
    },
    async list(owner: Owner, page: Page): Promise<{ configs: RagConfig[]; total: number }> {
      const { items, total } = await repo.list(owner, page);
      return { configs: items.map(view), total };
    },
    /** The list of `userId`, who must be the caller. */
    async listOfUser(owner: Owner, userId: string, page: Page): Promise<{ configs: RagConfig[]; total: number }> {
      if (userId !== owner.user_id) throw new ForbiddenError('Invalid Permission');
      return this.list(owner, page);
    },
    async replace(owner: Owner, id: string, input: RagInput): Promise<RagConfig> {
      if (!(await repo.get(owner, id))) throw new NotFoundError('RAG configuration');
      await checkCredentials(owner, input);
      const r = await guard(input.collection_name, repo.replace(owner, id, input, clock()));
      if (!r) throw new NotFoundError('RAG configuration');
      return view(r);
    },
    async delete(owner: Owner, id: string): Promise<void> {
      if (!(await repo.delete(owner, id))) throw new NotFoundError('RAG configuration');
    },
  };
}

export type RagService = ReturnType<typeof createRagService>;
