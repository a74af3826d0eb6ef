import { modelFor, mongoose, type Connection, type Model } from '@platform/db';

import type { AgentInput, AgentKind } from './agent.types';

/** Stored feature: its config as JSON text. */
export interface FeatureDoc {
  type: string;
  config?: Record<string, unknown>;
  config_json?: string;
  priority: number;
}

type JsonFields = 'features' | 'response_format' | 'tool_configs' | 'additional_model_params';

export interface AgentDoc extends Omit<AgentInput, JsonFields> {
  features?: FeatureDoc[];
  response_format?: Record<string, unknown> | null;
  response_format_json?: string | null;
  tool_configs?: unknown;
  tool_configs_json?: string | null;
  additional_model_params?: Record<string, unknown> | null;
  additional_model_params_json?: string | null;
  _id: number;
  user_id: string;
  org_id: string;
  kind: AgentKind;
  created_at: Date;
  updated_at: Date | null;
}

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

const agentSchema = new mongoose.Schema<AgentDoc>(
  {
    _id: { type: Number, required: true },
    user_id: { type: String, required: true },
    org_id: { type: String, required: true },
    kind: { type: String, enum: ['agent', 'single_task'], required: true },
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
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false, minimize: false },
);
agentSchema.index({ user_id: 1, org_id: 1, created_at: -1 });
agentSchema.index({ user_id: 1, org_id: 1, name: 1, created_at: -1 });

export function agentModel(conn: Connection): Model<AgentDoc> {
  return modelFor(conn, 'Agent', agentSchema, 'agents');
}
