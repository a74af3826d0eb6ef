// Generated from tool.schemas.ts by `pnpm schemas:types` (scripts/schema-types.cjs): edit the schemas, not this file.

export interface BulkDeleteBody {
  tool_ids: string[];
}

export interface BulkDeleteResult {
  deleted: number;
  /**
   * Requested ids matching none of the caller’s tools
   */
  not_found: string[];
}

export interface ToolSetBody {
  /**
   * Stored as openapi-<tool_set_name>.
   */
  tool_set_name: string;
  /**
   * OpenAPI 3.0, 3.1 or Swagger 2.0 document; internal $refs only.
   */
  openapi_schema: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * Sent with every call; values encrypted at rest, masked on read.
   */
  default_headers: {
    [pattern: string]: string;
  };
  /**
   * Merged under the query of each call.
   */
  default_query_params: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * Merged under the JSON body of each call.
   */
  default_body_params: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  endpoint_defaults: {
    base_url?: string | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  enhance_descriptions: boolean;
  /**
   * Key for enhance_descriptions; used once, never stored.
   */
  openai_api_key?: string | null;
}

export type ToolExecuteBody =
  | {
      /**
       * Unknown Property
       */
      [x: string]: unknown;
    }
  | unknown[];

export interface ToolExecuteQuery {
  /**
   * A path of the document, values filled in; may carry a query string.
   */
  path: string;
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH';
}

export interface ExecuteResult {
  status_code: number;
  /**
   * The remote answer's headers, by name
   */
  headers: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * JSON, or text
   */
  data?: unknown;
}

export interface ToolListQuery {
  /**
   * Items to skip
   */
  skip: number;
  /**
   * Items to return at most
   */
  limit: number;
}

export interface ToolToggleQuery {
  enabled: boolean;
}

export interface ToolCatalog {
  total: number;
  tools: ToolCatalogItem[];
}

export interface ToolCatalogItem {
  /**
   * The tool id
   */
  _id: string;
  /**
   * The tool id
   */
  provider_id: string;
  provider_source: 'openapi';
  name: string;
  description: string;
  enabled: boolean;
  meta_data: {
    tool_set_name: string;
    method: string;
    path: string;
  };
}

export interface ToolPath {
  /**
   * openapi-<tool_set_name>-<operationId or method_path>
   */
  tool_id: string;
}

export interface ToolInfo {
  id: string;
  name: string;
  /**
   * As sent on creation (no openapi- prefix)
   */
  tool_set_name: string;
  description: string;
  method: string;
  path: string;
  operation_id: string | null;
  enabled: boolean;
  created_at: string;
  updated_at: string | null;
  /**
   * The document the tool set was made from
   */
  openapi_schema: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * The document's path item of this tool's own operation
   */
  paths: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * JSON Schema of the arguments the model gives
   */
  parameters: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * Names only; every value masked ("***")
   */
  default_headers: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  default_query_params: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  default_body_params: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  endpoint_defaults: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}

export interface ToolList {
  tools: ToolListItem[];
  total: number;
}

export interface ToolListItem {
  id: string;
  name: string;
  /**
   * As sent on creation (no openapi- prefix)
   */
  tool_set_name: string;
  description: string;
  method: string;
  path: string;
  operation_id: string | null;
  enabled: boolean;
  created_at: string;
  updated_at: string | null;
}

export interface ToolSetCreated {
  tool_ids: string[];
}

export interface ToolUpdate {
  description?: string;
  /**
   * Replaces the headers; a value "***" keeps the stored one.
   */
  default_headers?: {
    [pattern: string]: string;
  };
  /**
   * Replaces the default query parameters.
   */
  default_query_params?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * Replaces the default body fields.
   */
  default_body_params?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * Replaces the endpoint defaults (base_url).
   */
  endpoint_defaults?: {
    base_url?: string | null;
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
  /**
   * A new document that still has this tool’s operation.
   */
  openapi_schema?: {
    /**
     * Unknown Property
     */
    [x: string]: unknown;
  };
}
