import { ConflictError, NotFoundError, ValidationError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import { openValues, type SecretBox } from '@platform/secrets';

import type { DescriptionEnhancer } from './description-enhancer';
import { baseUrlOf, matchPath, searchToQuery, withDefaults } from './remote-call';
import type { ToolExecutor } from './tool-executor';
import { reimportChanges, sealHeaders, setOperations, toolOf } from './tool-import';
import type { ToolRepository } from './tool.repository';
import type {
  BulkDeleteResult,
  ExecuteResult,
  HttpMethod,
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

/** The URL an execute request names, or a 422 when the tool's document has no such path for its method. */
function requestUrl(tool: ToolRecord, req: { path: string; method: HttpMethod }): URL {
  // A path the URL parser refuses (`/\\` reads as an empty host) is one the document cannot have.
  const url = URL.canParse(req.path, 'http://path.invalid') ? new URL(req.path, 'http://path.invalid') : null;
  if (!url || !matchPath(tool.openapi_schema, req.method, url.pathname)) {
    throw ValidationError.field(
      ['query', 'path'],
      `${req.method.toUpperCase()} ${url?.pathname ?? req.path} matches no path of the tool's OpenAPI document`,
      'path_not_in_schema',
    );
  }
  return url;
}

/** Tool sets imported from OpenAPI documents: import, read, update, toggle, delete and execute. */
export function createToolService(deps: ToolServiceDeps) {
  const { repo, box } = deps;

  async function getOrThrow(owner: Owner, toolId: string): Promise<ToolRecord> {
    const tool = await repo.get(owner, toolId);
    if (!tool) throw new NotFoundError('Tool');
    return tool;
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
      const ops = await setOperations(deps, setName, input);
      const sealed = sealHeaders(box, input.default_headers);
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
      if (headers) changes.default_headers_sealed = sealHeaders(box, headers, tool.default_headers_sealed);
      if (doc) Object.assign(changes, await reimportChanges(tool, doc, update.description));
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
      const url = requestUrl(tool, req);
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
