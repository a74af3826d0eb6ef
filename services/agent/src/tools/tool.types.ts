import type { Owner } from '../agents/agent.types';

export type { Owner };

export type JsonObject = Record<string, unknown>;

/** HTTP methods an OpenAPI operation (and the execute route) may use. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One operation of an imported document, as a tool. */
export interface Operation {
  /** `<operationId>` or `<method>_<path>`, sanitised: the last part of the tool id. */
  key: string;
  method: HttpMethod;
  /** The path template as the document writes it, e.g. `/pets/{petId}`. */
  path: string;
  operationId: string | null;
  description: string;
  /** JSON schema of the arguments: `{path_params?, query_params?, header_params?, body?}`. */
  parameters: JsonObject;
}

/** Body of POST /v3/tools/ after validation. */
export interface ToolSetInput {
  tool_set_name: string;
  openapi_schema: JsonObject;
  default_headers: Record<string, string>;
  default_query_params: JsonObject;
  default_body_params: JsonObject;
  endpoint_defaults: JsonObject;
  enhance_descriptions: boolean;
  openai_api_key?: string | null;
}

/** Body of PUT /v3/tools/{tool_id}: every field optional; the ones given replace the stored values. */
export interface ToolUpdate {
  description?: string;
  default_headers?: Record<string, string>;
  default_query_params?: JsonObject;
  default_body_params?: JsonObject;
  endpoint_defaults?: JsonObject;
  openapi_schema?: JsonObject;
}

/** What a new tool is stored with (header values already sealed). */
export interface NewTool {
  tool_id: string;
  tool_set_name: string;
  name: string;
  description: string;
  method: HttpMethod;
  path: string;
  operation_id: string | null;
  parameters: JsonObject;
  openapi_schema: JsonObject;
  default_headers_sealed: Record<string, string>;
  default_query_params: JsonObject;
  default_body_params: JsonObject;
  endpoint_defaults: JsonObject;
  enabled: boolean;
}

/** A stored tool as the service sees it: header values still sealed. */
export interface ToolRecord extends NewTool, Owner {
  created_at: string;
  updated_at: string | null;
}

/** The stored fields PUT may change (header values sealed). */
export type ToolChanges = Partial<
  Pick<
    NewTool,
    | 'description'
    | 'method'
    | 'path'
    | 'default_headers_sealed'
    | 'default_query_params'
    | 'default_body_params'
    | 'endpoint_defaults'
    | 'openapi_schema'
    | 'parameters'
  >
>;

/** One call to the remote API, after defaults are merged. */
export interface RemoteCall {
  method: HttpMethod;
  /** The concrete path, values filled in, without the query string. */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: unknown;
}

/** The execute route's answer, whatever the remote status. */
export interface ExecuteResult {
  status_code: number;
  headers: Record<string, string>;
  data: unknown;
}

/** What the model is offered for one tool. */
export interface ToolFunction {
  /** Function name as the model sees it (`^[A-Za-z0-9_-]{1,64}$`). */
  name: string;
  description: string;
  parameters: JsonObject;
}

/** Body of POST /v3/tools/bulk-delete's answer. */
export interface BulkDeleteResult {
  deleted: number;
  not_found: string[];
}

/** A tool in a list (GET /v3/tools/, /v3/tools/all/user): `tool_set_name` as the client sent it. */
export interface ToolListItem {
  id: string;
  name: string;
  tool_set_name: string;
  description: string;
  method: string;
  path: string;
  operation_id: string | null;
  enabled: boolean;
  created_at: string;
  updated_at: string | null;
}

/** A tool as GET /v3/providers/tools/all shows it: a provider catalog entry, `_id` and `provider_id` its id. */
export interface ToolCatalogItem {
  _id: string;
  provider_id: string;
  provider_source: 'openapi';
  name: string;
  description: string;
  enabled: boolean;
  meta_data: { tool_set_name: string; method: string; path: string };
}
