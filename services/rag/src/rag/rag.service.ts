import { createHash, timingSafeEqual } from 'node:crypto';

import type { Page } from '@platform/db';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, type FieldError } from '@platform/errors';

import type { CredentialCheck } from '../credentials/credential-check';
import { DuplicateCollectionError, type RagRepository } from './rag.repository';
import { CLEARED } from './rag.schemas';
import {
  CREDENTIAL_FIELDS,
  type Owner,
  type RagConfig,
  type RagInput,
  type RagPatch,
  type RagRecord,
} from './rag.types';

export interface RagServiceDeps {
  repo: RagRepository;
  credentials: CredentialCheck;
  clock: () => Date;
}

/** What a client sees: the record without its org, its id also as `_id` (frontends read that name). */
const view = ({ org_id: _org, ...rest }: RagRecord): RagConfig => ({ ...rest, _id: rest.id });

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Whether `given` is `key`, compared in constant time (over digests, so lengths leak nothing either). */
const sameSecret = (given: string, key: string | undefined) =>
  key !== undefined && timingSafeEqual(digest(given), digest(key));

/** A partial update as stored: an explicit null of a clearable field becomes its cleared value. */
function cleared(patch: RagPatch): Partial<RagInput> {
  const { description, semantic_data_model, meta_data, ...rest } = patch;
  return {
    ...rest,
    ...(description === undefined ? {} : { description: description ?? CLEARED.description }),
    ...(semantic_data_model === undefined
      ? {}
      : { semantic_data_model: semantic_data_model ?? CLEARED.semantic_data_model }),
    ...(meta_data === undefined ? {} : { meta_data: meta_data ?? { ...CLEARED.meta_data } }),
  };
}

const conflict = (name: string) =>
  new ConflictError(`A RAG configuration with collection_name "${name}" already exists`);

/** RAG configurations: owner-scoped, one collection name per owner, credential ids of ours checked. */
export function createRagService({ repo, credentials, clock }: RagServiceDeps) {
  /** 422 naming each credential field that names one of our credentials the owner does not have. */
  async function checkCredentials(owner: Owner, input: Partial<RagInput>): Promise<void> {
    const ours = CREDENTIAL_FIELDS.flatMap((f) => {
      const id = input[f];
      return id !== undefined && credentials.isOurs(id) ? [{ f, id }] : [];
    });
    const ids = [...new Set(ours.map((o) => o.id))];
    const owned = new Map(
      await Promise.all(ids.map(async (id) => [id, await credentials.belongsTo(owner, id)] as const)),
    );
    const problems: FieldError[] = ours
      .filter((o) => !owned.get(o.id))
      .map((o) => ({ loc: ['body', o.f], msg: `Credential ${o.id} not found`, type: 'credential_not_found' }));
    if (problems.length > 0) throw new ValidationError(problems);
  }

  async function guard<T>(name: string | undefined, write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (err) {
      if (err instanceof DuplicateCollectionError) throw conflict(name ?? '');
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
    /**
     * The list of `userId`, who must be the caller: the caller's user id, or the API key the request authenticated
     * with (`callerKey`, compared in constant time; absent on the internal path). Anything else → 403.
     */
    async listOfUser(
      owner: Owner,
      userId: string,
      page: Page,
      callerKey?: string,
    ): Promise<{ configs: RagConfig[]; total: number }> {
      if (userId !== owner.user_id && !sameSecret(userId, callerKey)) throw new ForbiddenError('Invalid Permission');
      return this.list(owner, page);
    },
    /** Merge: only the fields sent change; an explicit null clears a nullable field; credentials sent are checked. */
    async update(owner: Owner, id: string, patch: RagPatch): Promise<RagConfig> {
      if (!(await repo.get(owner, id))) throw new NotFoundError('RAG configuration');
      const fields = cleared(patch);
      await checkCredentials(owner, fields);
      const r = await guard(fields.collection_name, repo.update(owner, id, fields, clock()));
      if (!r) throw new NotFoundError('RAG configuration');
      return view(r);
    },
    async delete(owner: Owner, id: string): Promise<void> {
      if (!(await repo.delete(owner, id))) throw new NotFoundError('RAG configuration');
    },
  };
}

export type RagService = ReturnType<typeof createRagService>;
