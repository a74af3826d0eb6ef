import { MASK } from '@platform/secrets';

import type { JsonObject, ToolCatalogItem, ToolListItem, ToolRecord } from './tool.types';

/** Tool sets are stored as `openapi-<tool_set_name>`; clients get back the name they sent. */
const SET_PREFIX = 'openapi-';
export const sentSetName = (stored: string) =>
  stored.startsWith(SET_PREFIX) ? stored.slice(SET_PREFIX.length) : stored;

/** A tool in the list: what it calls and whether it is enabled. */
export function listItem(t: ToolRecord): ToolListItem {
  return {
    id: t.tool_id,
    name: t.name,
    tool_set_name: sentSetName(t.tool_set_name),
    description: t.description,
    method: t.method.toUpperCase(),
    path: t.path,
    operation_id: t.operation_id,
    enabled: t.enabled,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

/** A tool as a provider catalog entry: public clients resolve `_id` or `provider_id` to the tool id. */
export function catalogItem(t: ToolRecord): ToolCatalogItem {
  return {
    _id: t.tool_id,
    provider_id: t.tool_id,
    provider_source: 'openapi',
    name: t.name,
    description: t.description,
    enabled: t.enabled,
    meta_data: { tool_set_name: sentSetName(t.tool_set_name), method: t.method.toUpperCase(), path: t.path },
  };
}

/** The document's path item of the tool's own operation: `{<path>: {<method>: operation}}`. */
function ownPaths(t: ToolRecord): JsonObject {
  const item = (t.openapi_schema.paths as Record<string, JsonObject> | undefined)?.[t.path];
  return item ? { [t.path]: { [t.method]: item[t.method] } } : {};
}

/** The tool info response (`id, name, openapi_schema, paths`) with its settings; header values masked. */
export function detail(t: ToolRecord) {
  return {
    ...listItem(t),
    openapi_schema: t.openapi_schema,
    paths: ownPaths(t),
    parameters: t.parameters,
    default_headers: Object.fromEntries(Object.keys(t.default_headers_sealed).map((k) => [k, MASK])),
    default_query_params: t.default_query_params,
    default_body_params: t.default_body_params,
    endpoint_defaults: t.endpoint_defaults,
  };
}
