import { modelFor, mongoose, type Connection, type StoredDoc } from '@platform/db';

const { Mixed } = mongoose.Schema.Types;
const nullableString = { type: String, default: null };

// Free-form client JSON is kept as JSON text (`*_json`, see toJsonText); the Mixed fields are read only for
// documents written before that.
const featureSchema = new mongoose.Schema(
  {
    type: { type: String, required: true },
    config: { type: Mixed },
    config_json: String,
    priority: { type: Number, default: 0 },
  },
  { _id: false, minimize: false },
);

const agentSchema = new mongoose.Schema(
  {
    _id: { type: Number, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    kind: { type: String, enum: ['agent', 'single_task'] as const, required: true },
    name: { type: String, required: true },
    description: nullableString,
    system_prompt: nullableString,
    features: { type: [featureSchema], default: [] },
    tools: { type: [String], default: [] },
    llm_credential_id: nullableString,
    provider_id: nullableString,
    model: nullableString,
    top_p: { type: Number, default: null },
    temperature: { type: Number, default: null },
    response_format: Mixed,
    response_format_json: nullableString,
    agent_goal: nullableString,
    agent_context: nullableString,
    agent_output: nullableString,
    max_iterations: { type: Number, default: null },
    store_messages: { type: Boolean, default: null },
    tool_configs: Mixed,
    tool_configs_json: nullableString,
    additional_model_params: Mixed,
    additional_model_params_json: nullableString,
    agent_role: nullableString,
    agent_instructions: nullableString,
    examples: nullableString,
    tool: nullableString,
    tool_usage_description: nullableString,
    template_type: nullableString,
    version: nullableString,
    max_concurrency: { type: Number, default: null },
    // The stored-only fields of the hosted product (STORED_ONLY_FIELDS), each as JSON text; null: not set.
    managed_agents_json: nullableString,
    a2a_tools_json: nullableString,
    voice_config_json: nullableString,
    file_output_json: nullableString,
    disable_artifacts_json: nullableString,
    image_output_config_json: nullableString,
    git_agent_json: nullableString,
    proxy_config_json: nullableString,
    skills_catalog_json: nullableString,
    mcp_resources_json: nullableString,
    mcp_prompts_json: nullableString,
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false, minimize: false },
);
// The owner's list, newest first (then by id), and the owner's newest agent of a name.
agentSchema.index({ user_id: 1, org_id: 1, created_at: -1, _id: -1 });
agentSchema.index({ user_id: 1, org_id: 1, name: 1, created_at: -1, _id: -1 });
// Every agent with a limit (republishing the limits): a range over the agents that have one.
agentSchema.index({ max_concurrency: 1 });

/** A stored agent, as the schema types it (its id an integer of the `agents` sequence). */
export type AgentDoc = StoredDoc<typeof agentSchema, number>;

export function agentModel(conn: Connection) {
  return modelFor(conn, 'Agent', agentSchema, 'agents');
}
