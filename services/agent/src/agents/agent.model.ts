import { modelFor, mongoose, type Connection, type Model } from '@platform/db';
import type { AgentInput, AgentKind } from './agent.types';

export interface AgentDoc extends AgentInput {
  _id: number;
  user_id: string;
  org_id: string;
  kind: AgentKind;
  created_at: Date;
  updated_at: Date | null;
}

const { Mixed } = mongoose.Schema.Types;
const nullableString = { type: String, default: null };

const featureSchema = new mongoose.Schema(
  { type: { type: String, required: true }, config: { type: Mixed, default: {} }, priority: { type: Number, default: 0 } },
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
    response_format: { type: Mixed, default: null },
    agent_goal: nullableString,
    agent_context: nullableString,
    agent_output: nullableString,
    max_iterations: { type: Number, default: null },
    store_messages: { type: Boolean, default: null },
    tool_configs: { type: Mixed, default: null },
    additional_model_params: { type: Mixed, default: null },
    agent_role: nullableString,
    agent_instructions: nullableString,
    examples: nullableString,
    tool: nullableString,
    tool_usage_description: nullableString,
    template_type: nullableString,
    version: nullableString,
    created_at: { type: Date, required: true },
    updated_at: { type: Date, default: null },
  },
  { versionKey: false, minimize: false },
);
agentSchema.index({ user_id: 1, org_id: 1, created_at: -1 });

export function agentModel(conn: Connection): Model<AgentDoc> {
  return modelFor(conn, 'Agent', agentSchema, 'agents');
}
