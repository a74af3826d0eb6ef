import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const requiredString = { type: String, required: true };

/**
 * One tool (one operation of an imported document). Documents, schemas and defaults are stored as JSON text:
 * OpenAPI documents hold `$ref` keys and user objects may hold keys with dots or `$`, which MongoDB treats specially
 * in field names.
 */
const toolSchema = new mongoose.Schema(
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
    /** Header names → AES-256-GCM sealed values, as JSON text. */
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
// A tool by its id (unique per owner), a set by its name, and the owner's list newest first then by id.
toolSchema.index({ user_id: 1, org_id: 1, tool_id: 1 }, { unique: true });
toolSchema.index({ user_id: 1, org_id: 1, tool_set_name: 1 });
toolSchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });

/** A stored tool, as the schema types it. */
export type ToolDoc = StoredDoc<typeof toolSchema>;

export function toolModel(conn: Connection) {
  return modelFor(conn, 'Tool', toolSchema, 'tools');
}
