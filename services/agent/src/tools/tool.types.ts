import type { Owner } from '../agents/agent.types';

export type { Owner };
export type {
  BulkDeleteResult,
  ExecuteResult,
  ToolCatalogItem,
  ToolListItem,
  ToolSetBody as ToolSetInput,
  ToolUpdate,
} from './tool.schemas.types';

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

/** What the model is offered for one tool. */
export interface ToolFunction {
  /** Function name as the model sees it (`^[A-Za-z0-9_-]{1,64}$`). */
  name: string;
  description: string;
  parameters: JsonObject;
}
