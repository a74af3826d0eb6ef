import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const policySchema = new mongoose.Schema(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    /**
     * The rule sections as one JSON text: written and read whole, never queried by their content, and sections added
     * since a policy was stored read as their defaults.
     */
    rules_json: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
// An owner's policies, newest first (the list's order, `findPage`).
policySchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });

/** A stored policy, as the schema types it. */
export type PolicyDoc = StoredDoc<typeof policySchema>;

export function policyModel(conn: Connection) {
  return modelFor(conn, 'RaiPolicy', policySchema, 'rai_policies');
}
