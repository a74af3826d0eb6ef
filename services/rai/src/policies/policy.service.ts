import type { Page } from '@platform/db';
import { NotFoundError, ValidationError } from '@platform/errors';

import type { PolicyRepository } from './policy.repository';
import type { Owner, PolicyInput, PolicyPatch, PolicyRecord, PolicyView } from './policy.types';

export interface PolicyServiceDeps {
  repo: PolicyRepository;
  clock: () => Date;
  /** Whether the owner's credential opens (through the agent service): an LLM judge must name one that does. */
  credentialOpens: (owner: Owner, credentialId: string) => Promise<boolean>;
}

export const policyView = ({ org_id: _org, ...rest }: PolicyRecord): PolicyView => ({ _id: rest.id, ...rest });

/** RAI policies: owner-scoped CRUD. */
export function createPolicyService({ repo, clock, credentialOpens }: PolicyServiceDeps) {
  /** A judge is refused at save, not at the first inference, when its credential is not the owner's or won't open. */
  async function checkJudge(owner: Owner, judge: PolicyInput['llm_judge']): Promise<void> {
    if (!judge.enabled) return;
    const loc = (field: string) => ['body', 'llm_judge', field];
    if (!judge.credential_id)
      throw ValidationError.field(loc('credential_id'), 'required when enabled', 'any.required');
    if (!judge.model) throw ValidationError.field(loc('model'), 'required when enabled', 'any.required');
    if (!(await credentialOpens(owner, judge.credential_id)))
      throw ValidationError.field(
        loc('credential_id'),
        "credential not found among the owner's credentials, or the agent service cannot open it",
        'value.credential',
      );
  }
  async function load(owner: Owner, id: string): Promise<PolicyRecord> {
    const p = await repo.get(owner, id);
    if (!p) throw new NotFoundError('Policy');
    return p;
  }
  return {
    load,
    async create(owner: Owner, input: PolicyInput): Promise<PolicyView> {
      await checkJudge(owner, input.llm_judge);
      return policyView(await repo.create(owner, input, clock()));
    },
    async get(owner: Owner, id: string): Promise<PolicyView> {
      return policyView(await load(owner, id));
    },
    async list(owner: Owner, page: Page): Promise<{ policies: PolicyView[]; total: number }> {
      const { items, total } = await repo.list(owner, page);
      return { policies: items.map(policyView), total };
    },
    async update(owner: Owner, id: string, patch: PolicyPatch): Promise<PolicyView> {
      const { id: _id, user_id: _u, org_id: _o, created_at: _c, updated_at: _up, ...current } = await load(owner, id);
      if (patch.llm_judge) await checkJudge(owner, patch.llm_judge);
      const updated = await repo.replace(owner, id, { ...current, ...patch }, clock());
      if (!updated) throw new NotFoundError('Policy');
      return policyView(updated);
    },
    async delete(owner: Owner, id: string): Promise<void> {
      if (!(await repo.delete(owner, id))) throw new NotFoundError('Policy');
    },
  };
}

export type PolicyService = ReturnType<typeof createPolicyService>;
