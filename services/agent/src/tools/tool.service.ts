import { ConflictError, NotFoundError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { MASK, openValues, type SecretBox } from '@platform/secrets';

import type { DescriptionEnhancer } from './description-enhancer';
import { importOperations } from './openapi-import';
import { baseUrlOf, matchPath, searchToQuery, withDefaults } from './remote-call';
import type { ToolExecutor } from './tool-executor';
import type { ToolRepository } from './tool.repository';
import type {
  BulkDeleteResult,
  ExecuteResult,
  HttpMethod,
  NewTool,
  Operation,
  Owner,
  RemoteCall,
  ToolChanges,
  ToolRecord,
  ToolSetInput,
  ToolUpdate,
} from './tool.types';

export interface ToolServiceDeps {
  repo: ToolRepository;
  box: SecretBox;
  executor: ToolExecutor;
  enhancer: DescriptionEnhancer;
  clock: () => Date;
  logger: Logger;
}

/** The stored name of a set: `openapi-<tool_set_name>`. */
export const setNameOf = (toolSetName: string) => `openapi-${toolSetName}`;

/** Tool sets imported from OpenAPI documents: import, read, update, toggle, delete and execute. */
export function createToolService(deps: ToolServiceDeps) {
  const { repo, box } = deps;

  /** Header values sealed; a masked value (`***`, as read back) keeps the value already stored under that name. */
  function sealHeaders(headers: Record<string, string>, stored: Record<string, string> = {}): Record<string, string> {
    return Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v === MASK && stored[k] ? stored[k] : box.encrypt(v)]),
    );
  }

  function toolOf(setName: string, op: Operation, input: ToolSetInput, sealed: Record<string, string>): NewTool {
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

  async function getOrThrow(owner: Owner, toolId: string): Promise<ToolRecord> {
    const tool = await repo.get(owner, toolId);
    if (!tool) throw new NotFoundError('Tool');
    return tool;
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

  /** Calls the remote API with the tool's defaults under the call's values. The caller checks that it is enabled. */
  async function call(tool: ToolRecord, remote: RemoteCall): Promise<ExecuteResult> {
    const headers = openValues(box, tool.default_headers_sealed);
    return deps.executor.call(baseUrlOf(tool), withDefaults(tool, headers, remote));
  }

  return {
    async create(owner: Owner, input: ToolSetInput): Promise<string[]> {
      const setName = setNameOf(input.tool_set_name);
      if (await repo.setExists(owner, setName)) throw new ConflictError(`Tool set ${setName} already exists`);
      let ops = await importOperations(input.openapi_schema);
      if (input.enhance_descriptions && input.openai_api_key)
        ops = await deps.enhancer.enhance(input.openai_api_key, ops);
      else if (input.enhance_descriptions)
        deps.logger.warn('tool description enhancement skipped: no openai_api_key', { tool_set_name: setName });
      const sealed = sealHeaders(input.default_headers);
      const tools = ops.map((op) => toolOf(setName, op, input, sealed));
      if (!(await repo.createMany(owner, tools, deps.clock())))
        throw new ConflictError(`Tool set ${setName} already exists`);
      return tools.map((t) => t.tool_id);
    },

    get: getOrThrow,
    list: (owner: Owner, skip: number, limit: number) => repo.list(owner, skip, limit),

    async update(owner: Owner, toolId: string, update: ToolUpdate): Promise<void> {
      const tool = await getOrThrow(owner, toolId);
      const { default_headers: headers, openapi_schema: doc, ...plain } = update;
      const changes: ToolChanges = { ...plain };
      if (headers) changes.default_headers_sealed = sealHeaders(headers, tool.default_headers_sealed);
      if (doc) {
        const op = await reimport(tool, doc);
        Object.assign(changes, {
          openapi_schema: doc,
          parameters: op.parameters,
          method: op.method,
          path: op.path,
          description: update.description ?? op.description,
        });
      }
      if (!(await repo.update(owner, toolId, changes, deps.clock()))) throw new NotFoundError('Tool');
    },

    async setEnabled(owner: Owner, toolId: string, enabled: boolean): Promise<void> {
      if (!(await repo.update(owner, toolId, { enabled }, deps.clock()))) throw new NotFoundError('Tool');
    },

    async delete(owner: Owner, toolId: string): Promise<void> {
      if (!(await repo.delete(owner, toolId))) throw new NotFoundError('Tool');
    },

    /** Deletes the caller's tools among `toolIds` (a repeated id counts once); the others are `not_found`. */
    async bulkDelete(owner: Owner, toolIds: string[]): Promise<BulkDeleteResult> {
      const unique = [...new Set(toolIds)];
      const { found, deleted } = await repo.deleteMany(owner, unique);
      const gone = new Set(found);
      return { deleted, not_found: unique.filter((id) => !gone.has(id)) };
    },

    /** The execute route: `path` (with any query string) must match one of the document's paths for `method`. */
    async execute(
      owner: Owner,
      toolId: string,
      req: { path: string; method: HttpMethod; body?: unknown },
    ): Promise<ExecuteResult> {
      const tool = await getOrThrow(owner, toolId);
      if (!tool.enabled) throw new ConflictError('Tool is disabled');
      // A path the URL parser refuses (`/\\` reads as an empty host) is one the document cannot have.
      const url = URL.canParse(req.path, 'http://path.invalid') ? new URL(req.path, 'http://path.invalid') : null;
      if (!url || !matchPath(tool.openapi_schema, req.method, url.pathname)) {
        throw ValidationError.field(
          ['query', 'path'],
          `${req.method.toUpperCase()} ${url?.pathname ?? req.path} matches no path of the tool's OpenAPI document`,
          'path_not_in_schema',
        );
      }
      return call(tool, {
        method: req.method,
        path: url.pathname,
        query: searchToQuery(url.searchParams),
        headers: {},
        body: req.body,
      });
    },

    call,

    /** The owner's tools named by id or set name (`openapi-<set>`), for an agent run. */
    findForAgent: (owner: Owner, refs: string[]) => repo.findByRefs(owner, refs),
  };
}

export type ToolService = ReturnType<typeof createToolService>;
