import { ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { MASK, type SecretBox } from '@platform/secrets';

import type { DescriptionEnhancer } from './description-enhancer';
import { importOperations } from './openapi-import';
import type { NewTool, Operation, ToolChanges, ToolRecord, ToolSetInput } from './tool.types';

/** Header values sealed; a masked value (`***`, as read back) keeps the value already stored under that name. */
export function sealHeaders(
  box: SecretBox,
  headers: Record<string, string>,
  stored: Record<string, string> = {},
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, v === MASK && stored[k] ? stored[k] : box.encrypt(v)]),
  );
}

/** The operations of a new set's document, their descriptions enhanced when asked for and a key is given. */
export async function setOperations(
  deps: { enhancer: DescriptionEnhancer; logger: Logger },
  setName: string,
  input: ToolSetInput,
): Promise<Operation[]> {
  let ops = await importOperations(input.openapi_schema);
  if (input.enhance_descriptions && input.openai_api_key) ops = await deps.enhancer.enhance(input.openai_api_key, ops);
  else if (input.enhance_descriptions)
    deps.logger.warn('tool description enhancement skipped: no openai_api_key', { tool_set_name: setName });
  return ops;
}

/** The tool of one operation of a set. */
export function toolOf(setName: string, op: Operation, input: ToolSetInput, sealed: Record<string, string>): NewTool {
  return {
    tool_id: `${setName}-${op.key}`,
    tool_set_name: setName,
    name: setName,
    description: op.description,
    method: op.method,
    path: op.path,
    operation_id: op.operationId,
    parameters: op.parameters,
    openapi_schema: input.openapi_schema,
    default_headers_sealed: sealed,
    default_query_params: input.default_query_params,
    default_body_params: input.default_body_params,
    endpoint_defaults: input.endpoint_defaults,
    enabled: true,
  };
}

/** The tool's own operation in a new document: same operationId, else same method and path. */
async function reimport(tool: ToolRecord, doc: Record<string, unknown>): Promise<Operation> {
  const ops = await importOperations(doc);
  const op = tool.operation_id
    ? ops.find((o) => o.operationId === tool.operation_id)
    : ops.find((o) => o.method === tool.method && o.path === tool.path);
  const what = tool.operation_id ? `operationId "${tool.operation_id}"` : `${tool.method.toUpperCase()} ${tool.path}`;
  if (!op)
    throw ValidationError.field(
      ['body', 'openapi_schema'],
      `The document has no ${what}, the operation of this tool`,
      'operation_missing',
    );
  return op;
}

/** What a new document changes of a tool: its operation's parameters, method and path, and a description unless given. */
export async function reimportChanges(
  tool: ToolRecord,
  doc: Record<string, unknown>,
  description: string | undefined,
): Promise<ToolChanges> {
  const op = await reimport(tool, doc);
  return {
    openapi_schema: doc,
    parameters: op.parameters,
    method: op.method,
    path: op.path,
    description: description ?? op.description,
  };
}
