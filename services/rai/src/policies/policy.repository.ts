import { findPage, fromJsonText, isObjectIdHex, ownerFilter, type Connection, type Page } from '@platform/db';

import { policyModel, type PolicyDoc } from './policy.model';
import { defaultRules } from './policy.schemas';
import type { Owner, PolicyInput, PolicyRecord, PolicyRules } from './policy.types';

function toRecord(d: PolicyDoc): PolicyRecord {
  return {
    id: d._id.toHexString(),
    user_id: d.user_id,
    org_id: d.org_id,
    name: d.name,
    description: d.description ?? '',
    // Sections added since the policy was stored read as their defaults.
    ...(defaultRules as unknown as PolicyRules),
    ...(fromJsonText(d.rules_json) as PolicyRules),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

const fieldsOf = ({ name, description, ...rules }: PolicyInput) => ({
  name,
  description,
  rules_json: JSON.stringify(rules),
});
const scoped = (owner: Owner, id: string) => ({ _id: id, ...ownerFilter(owner) });

/** RAI policies, each scoped to its owner. */
export function createPolicyRepository(conn: Connection) {
  const Policy = policyModel(conn);
  return {
    async create(owner: Owner, input: PolicyInput, now: Date): Promise<PolicyRecord> {
      const doc = await Policy.create({ ...fieldsOf(input), ...ownerFilter(owner), created_at: now, updated_at: now });
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: string): Promise<PolicyRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Policy.findOne(scoped(owner, id)).lean();
      return d ? toRecord(d) : null;
    },
    list(owner: Owner, page: Page): Promise<{ items: PolicyRecord[]; total: number }> {
      // The page is read lean, with its `_id`s (findPage types it as the schema, which has none).
      return findPage(Policy, { ...ownerFilter(owner) }, page, (d) => toRecord(d as PolicyDoc));
    },
    async replace(owner: Owner, id: string, input: PolicyInput, now: Date): Promise<PolicyRecord | null> {
      if (!isObjectIdHex(id)) return null;
      const d = await Policy.findOneAndUpdate(
        scoped(owner, id),
        { $set: { ...fieldsOf(input), updated_at: now } },
        { returnDocument: 'after' },
      ).lean();
      return d ? toRecord(d) : null;
    },
    async delete(owner: Owner, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return (await Policy.deleteOne(scoped(owner, id))).deletedCount === 1;
    },
  };
}

export type PolicyRepository = ReturnType<typeof createPolicyRepository>;
