import { ValidationError } from '@platform/errors';

import { documentBaseUrl } from './openapi-import';
import { ARGUMENT_GROUPS } from './operation-schema';
import type { HttpMethod, JsonObject, RemoteCall, ToolRecord } from './tool.types';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/** A path template as a regular expression; `{name}` matches one non-empty segment (or part of one). */
function templateRegex(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : escape(part)))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

/**
 * The document's path template that `path` (concrete values filled in) matches for `method`, or null. When several
 * match, the one with the most literal characters wins (`/pets/mine` before `/pets/{id}`).
 */
export function matchPath(doc: JsonObject, method: HttpMethod, path: string): string | null {
  const paths = isObject(doc.paths) ? doc.paths : {};
  const candidates = Object.entries(paths)
    .filter(([template, item]) => isObject(item) && isObject(item[method]) && templateRegex(template).test(path))
    .map(([template]) => template);
  const literal = (t: string) => t.replace(/\{[^}]+\}/g, '').length;
  return candidates.sort((a, b) => literal(b) - literal(a))[0] ?? null;
}

/** A path template with the model's values filled in, each percent-encoded. */
export function fillPath(template: string, values: JsonObject): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => encodeURIComponent(pathValue(values[name])));
}

/** A path parameter's text: strings as they are, other JSON values as JSON text, absent as empty. */
function pathValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function queryValue(v: unknown): string | string[] {
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Query parameters as strings (repeated names as arrays); null and undefined values are left out. */
export function toQuery(values: JsonObject): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, queryValue(v)]),
  );
}

/** The query string of the execute route's `path`, repeated names kept as arrays. */
export function searchToQuery(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    const all = search.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/** The model's arguments (already validated against the tool's schema) as a call to the tool's own operation. */
export function callFromArguments(tool: ToolRecord, args: JsonObject): RemoteCall {
  const group = (name: string) => (isObject(args[name]) ? args[name] : {});
  const headers = Object.fromEntries(
    Object.entries(group(ARGUMENT_GROUPS.header)).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return {
    method: tool.method,
    path: fillPath(tool.path, group(ARGUMENT_GROUPS.path)),
    query: toQuery(group(ARGUMENT_GROUPS.query)),
    headers,
    body: args.body,
  };
}

const BODYLESS = new Set<HttpMethod>(['get', 'head', 'options', 'delete']);

/**
 * The tool's defaults under the call's own values: query parameters and headers by name; the body's fields when
 * both are objects. A method without a body (GET, HEAD, OPTIONS, DELETE) gets the default body only if it sent one.
 */
export function withDefaults(tool: ToolRecord, defaultHeaders: Record<string, string>, call: RemoteCall): RemoteCall {
  const defaults = tool.default_body_params;
  let body = call.body;
  if (isObject(body)) body = { ...defaults, ...body };
  else if (body === undefined && !BODYLESS.has(call.method) && Object.keys(defaults).length > 0) body = { ...defaults };
  const headers: Record<string, string> = { ...defaultHeaders };
  for (const [k, v] of Object.entries(call.headers)) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    headers[k] = v;
  }
  return { ...call, query: { ...toQuery(tool.default_query_params), ...call.query }, headers, body };
}

/** `endpoint_defaults.base_url`, else the document's first server; 422 when neither is an absolute http(s) URL. */
export function baseUrlOf(tool: ToolRecord): string {
  const configured = tool.endpoint_defaults.base_url;
  const base = typeof configured === 'string' && configured ? configured : documentBaseUrl(tool.openapi_schema);
  if (!base || !/^https?:\/\//i.test(base)) {
    throw ValidationError.field(
      ['path', 'tool_id'],
      `Tool ${tool.tool_id} has no absolute base URL (the document's server is ${base ? `"${base}"` : 'missing'}): set endpoint_defaults.base_url`,
      'base_url_missing',
    );
  }
  return base.replace(/\/+$/, '');
}

/** The full URL of a call. */
export function urlOf(base: string, call: RemoteCall): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(call.query)) for (const one of Array.isArray(v) ? v : [v]) search.append(k, one);
  const qs = search.toString();
  return `${base}${call.path}${qs ? `?${qs}` : ''}`;
}
