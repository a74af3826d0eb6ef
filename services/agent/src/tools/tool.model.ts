import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

/**
 * One tool (one operation of an imported document). Documents, schemas and defaults are stored as JSON text:
 * OpenAPI documents hold `$ref` keys and user objects may hold keys with dots or `$`, which MongoDB and FerretDB
 * treat specially as field names.
 */
export interface ToolDoc {
  _id: mongoose.Types.ObjectId;
  user_id: string;
  org_id: string;
  tool_id: string;
  tool_set_name: string;
  name: string;
  description: string;
  method: string;
  path: string;
  operation_id: string | null;
  parameters_json: string;
  openapi_schema_json: string;
  /** Header names → AES-256-GCM sealed values, as JSON text. */
  default_headers_json: string;
  default_query_params_json: string;
  default_body_params_json: string;
  endpoint_defaults_json: string;
  enabled: boolean;
  created_at: Date;
  updated_at: Date | null;
}

const requiredString = { type: String, required: true };

const toolSchema = new mongoose.Schema<ToolDoc>(
  {
    user_id: requiredString,
    org_id: requiredString,
    tool_id: requiredString,
    tool_set_name: requiredString,
    name: requiredString,
    description: { type: String, default: '' },
    method: requiredString,
    path: requiredString,
    operation_id: { type: String, default: null },
    parameters_json: requiredString,
    openapi_schema_json: requiredString,
    default_headers_json: { type: String, default: '{}' },
    default_query_params_json: { type: String, default: '{}' },
    default_body_params_json: { type: String, default: '{}' },
    endpoint_defaults_json: { type: String, default: '{}' },
    enabled: { type: Boolean, default: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false },
);
toolSchema.index({ user_id: 1, org_id: 1, tool_id: 1 }, { unique: true });
toolSchema.index({ user_id: 1, org_id: 1, created_at: -1 });
toolSchema.index({ user_id: 1, org_id: 1, tool_set_name: 1 });

export function toolModel(conn: Connection): Model<ToolDoc> {
  return modelFor(conn, 'Tool', toolSchema, 'tools');
}
