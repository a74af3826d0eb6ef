// Generated from agent.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

/**
 * The stored agent: every field of AgentBody as stored (unset ones null), the owner, and times.
 */
export interface Agent {
  id: string;
  /**
   * The same id
   */
  agent_id: string;
  kind: 'agent' | 'single_task';
  user_id?: string;
  org_id?: string;
  name: string;
  features?: Feature[];
  tools?: string[];
  top_p?: number | null;
  temperature?: number | null;
  max_iterations?: number | null;
  store_messages?: boolean | null;
  response_format?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * As sent
   */
  tool_configs?:
    | unknown[]
    | {
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }
    | null;
  additional_model_params?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  created_at: string;
  updated_at?: string | null;
  description?: string | null;
  system_prompt?: string | null;
  llm_credential_id?: string | null;
  provider_id?: string | null;
  model?: string | null;
  agent_role?: string | null;
  agent_goal?: string | null;
  agent_context?: string | null;
  agent_output?: string | null;
  agent_instructions?: string | null;
  examples?: string | null;
  tool?: string | null;
  tool_usage_description?: string | null;
  template_type?: string | null;
  version?: string | null;
  /**
   * Runs in flight at once; null: no limit
   */
  max_concurrency?: number | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  managed_agents?:
    /**
     * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        id?: string | null;
        name?: string | null;
        usage_description?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  a2a_tools?:
    /**
     * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        base_url?: string | null;
        agent_name?: string | null;
        agent_card_path?: string | null;
        auth_type?: string | null;
        credential_id?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  voice_config?: /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether the agent may output files. At most 16384 characters as JSON, nesting depth at most 8.
   */
  file_output?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether artifact generation is off. At most 16384 characters as JSON, nesting depth at most 8.
   */
  disable_artifacts?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  image_output_config?: /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    model?: string | null;
    credential_id?: string | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  git_agent?: /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  proxy_config?: /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
   */
  skills_catalog?:
    /**
     * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
     */
    string[] | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_resources?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        resource_uri?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_prompts?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        prompt_name?: string | null;
        variables?: {
          /**
           * Unknown Property
           */
          [x: string]: unknown;
        } | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
}

export interface AgentBody {
  name: string;
  description?: string | null;
  features: Feature[];
  llm_credential_id?: string | null;
  provider_id?: string | null;
  model?: string | null;
  top_p?: number | null;
  temperature?: number | null;
  response_format?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  agent_goal?: string | null;
  agent_context?: string | null;
  agent_output?: string | null;
  max_iterations?: number | null;
  store_messages?: boolean | null;
  tool_configs?:
    | unknown[]
    | {
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }
    | null;
  additional_model_params?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  template_type?: string | null;
  version?: string | null;
  /**
   * Runs of this agent in flight at once across every worker (1–1000); runs over it wait queued, in order. Null or absent: no limit.
   */
  max_concurrency?: number | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  managed_agents?:
    /**
     * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        id?: string | null;
        name?: string | null;
        usage_description?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  a2a_tools?:
    /**
     * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        base_url?: string | null;
        agent_name?: string | null;
        agent_card_path?: string | null;
        auth_type?: string | null;
        credential_id?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  voice_config?: /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether the agent may output files. At most 16384 characters as JSON, nesting depth at most 8.
   */
  file_output?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether artifact generation is off. At most 16384 characters as JSON, nesting depth at most 8.
   */
  disable_artifacts?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  image_output_config?: /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    model?: string | null;
    credential_id?: string | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  git_agent?: /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  proxy_config?: /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
   */
  skills_catalog?:
    /**
     * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
     */
    string[] | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_resources?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        resource_uri?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_prompts?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        prompt_name?: string | null;
        variables?: {
          /**
           * Unknown Property
           */
          [x: string]: unknown;
        } | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  agent_role?: string | null;
  agent_instructions?: string | null;
  examples?: string | null;
  tool?: string | null;
  tool_usage_description?: string | null;
  /**
   * The system message when non-empty; else it is built from the labelled agent_* fields and examples.
   */
  system_prompt?: string | null;
  tools: string[];
}

export interface AgentByName {
  agent_id: string;
  /**
   * The same id
   */
  id: string;
  name: string;
}

export interface AgentCreated {
  id: number;
  agent_id: string;
  message: string;
}

export interface AgentList {
  total: number;
  agents: AgentListItem[];
}

export interface AgentListItem {
  id: string;
  /**
   * The same id (public clients read this name)
   */
  agent_id: string;
  name: string;
  /**
   * As GET /v3/agents/{agent_id} shows it
   */
  description: string | null;
}

export interface AgentMessage {
  message: string;
}

export interface AgentPath {
  agent_id: string;
}

export interface AgentByNamePath {
  name: string;
}

export interface Feature {
  type: string;
  /**
   * Per type. KNOWLEDGE_BASE: `rag_id` (with `top_k`, `score_threshold`), or `lyzr_rag: {rag_id, params: {top_k, score_threshold}}` and `agentic_rag[]` / `oneshot_rag[]` entries with `rag_id`; each rag id must be the caller's.
   */
  config: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  priority: number;
}

export interface AgentListQuery {
  /**
   * Items to skip (default 0 when limit is sent)
   */
  skip?: number;
  /**
   * Items to return at most (default 50 when skip is sent; without either, up to 1000)
   */
  limit?: number;
}

export interface SingleTaskBody {
  name: string;
  description?: string | null;
  features: Feature[];
  llm_credential_id?: string | null;
  provider_id?: string | null;
  model?: string | null;
  top_p?: number | null;
  temperature?: number | null;
  response_format?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  agent_goal?: string | null;
  agent_context?: string | null;
  agent_output?: string | null;
  max_iterations?: number | null;
  store_messages?: boolean | null;
  tool_configs?:
    | unknown[]
    | {
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }
    | null;
  additional_model_params?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  template_type?: string | null;
  version?: string | null;
  /**
   * Runs of this agent in flight at once across every worker (1–1000); runs over it wait queued, in order. Null or absent: no limit.
   */
  max_concurrency?: number | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  managed_agents?:
    /**
     * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        id?: string | null;
        name?: string | null;
        usage_description?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  a2a_tools?:
    /**
     * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        base_url?: string | null;
        agent_name?: string | null;
        agent_card_path?: string | null;
        auth_type?: string | null;
        credential_id?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  voice_config?: /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether the agent may output files. At most 16384 characters as JSON, nesting depth at most 8.
   */
  file_output?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether artifact generation is off. At most 16384 characters as JSON, nesting depth at most 8.
   */
  disable_artifacts?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  image_output_config?: /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    model?: string | null;
    credential_id?: string | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  git_agent?: /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  proxy_config?: /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
   */
  skills_catalog?:
    /**
     * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
     */
    string[] | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_resources?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        resource_uri?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_prompts?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        prompt_name?: string | null;
        variables?: {
          /**
           * Unknown Property
           */
          [x: string]: unknown;
        } | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  agent_role?: string | null;
  agent_instructions?: string | null;
  examples?: string | null;
  tool?: string | null;
  tool_usage_description?: string | null;
}

export interface SingleTaskCreated {
  id: number;
  message: string;
}

/**
 * Partial update: fields not sent keep their values; an explicit null clears a nullable field.
 */
export interface SingleTaskPatch {
  name?: string;
  description?: string | null;
  features?: Feature[];
  llm_credential_id?: string | null;
  provider_id?: string | null;
  model?: string | null;
  top_p?: number | null;
  temperature?: number | null;
  response_format?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  agent_goal?: string | null;
  agent_context?: string | null;
  agent_output?: string | null;
  max_iterations?: number | null;
  store_messages?: boolean | null;
  tool_configs?:
    | unknown[]
    | {
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }
    | null;
  additional_model_params?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  template_type?: string | null;
  version?: string | null;
  /**
   * Runs of this agent in flight at once across every worker (1–1000); runs over it wait queued, in order. Null or absent: no limit.
   */
  max_concurrency?: number | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  managed_agents?:
    /**
     * Stored only: kept as sent and returned, not acted on. Sub-agents this agent may delegate to: `{id, name, usage_description}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        id?: string | null;
        name?: string | null;
        usage_description?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  a2a_tools?:
    /**
     * Stored only: kept as sent and returned, not acted on. Agent-to-agent endpoints: `{base_url, agent_name, agent_card_path, auth_type, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        base_url?: string | null;
        agent_name?: string | null;
        agent_card_path?: string | null;
        auth_type?: string | null;
        credential_id?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  voice_config?: /**
   * Stored only: kept as sent and returned, not acted on. Voice settings, e.g. `{initiator, message, language}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether the agent may output files. At most 16384 characters as JSON, nesting depth at most 8.
   */
  file_output?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Whether artifact generation is off. At most 16384 characters as JSON, nesting depth at most 8.
   */
  disable_artifacts?: boolean | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  image_output_config?: /**
   * Stored only: kept as sent and returned, not acted on. Image generation: `{model, credential_id}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    model?: string | null;
    credential_id?: string | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  git_agent?: /**
   * Stored only: kept as sent and returned, not acted on. Git integration settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  proxy_config?: /**
   * Stored only: kept as sent and returned, not acted on. Proxy settings. At most 16384 characters as JSON, nesting depth at most 8.
   */
  {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  } | null;
  /**
   * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
   */
  skills_catalog?:
    /**
     * Stored only: kept as sent and returned, not acted on. Skill ids available to the agent. At most 16384 characters as JSON, nesting depth at most 8.
     */
    string[] | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_resources?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP resources: `{server_id, resource_uri}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        resource_uri?: string | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  /**
   * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
   */
  mcp_prompts?:
    /**
     * Stored only: kept as sent and returned, not acted on. MCP prompts: `{server_id, prompt_name, variables}`. At most 16384 characters as JSON, nesting depth at most 8.
     */
    | {
        server_id?: string | null;
        prompt_name?: string | null;
        variables?: {
          /**
           * Unknown Property
           */
          [x: string]: unknown;
        } | null;
        /**
         * Unknown Property
         */
        [x: string]: unknown;
      }[]
    | null;
  agent_role?: string | null;
  agent_instructions?: string | null;
  examples?: string | null;
  tool?: string | null;
  tool_usage_description?: string | null;
}
