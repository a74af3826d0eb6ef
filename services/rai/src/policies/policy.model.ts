import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

export interface PolicyDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  name: string;
  description: string;
  /** The rule sections as JSON text: terms may be strings or objects, which a mixed array in FerretDB handles badly. */
  rules_json: string;
  created_at: Date;
  updated_at: Date;
}

const policySchema = new mongoose.Schema<PolicyDoc>(
  {
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    rules_json: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
policySchema.index({ user_id: 1, org_id: 1, created_at: -1 });

export function policyModel(conn: Connection): Model<PolicyDoc> {
  return modelFor(conn, 'RaiPolicy', policySchema, 'rai_policies');
}
