import { principalOf } from '@platform/auth';
import { route, type Route, type RouteInput } from '@platform/http';

import { agentMessage } from '../agents/agent.schemas';
import {
  bulkDeleteBody,
  bulkDeleteResult,
  createBody,
  executeBody,
  executeQuery,
  executeResult,
  listQuery,
  toggleQuery,
  toolCatalog,
  toolIdPath,
  toolInfo,
  toolList,
  toolSetCreated,
  updateBody,
} from './tool.schemas';
import type { ToolService } from './tool.service';
import type { HttpMethod, ToolCatalogItem, ToolListItem } from './tool.types';
import { catalogItem, detail, listItem } from './tool.views';

type Page = RouteInput<unknown, { skip: number; limit: number }, unknown, unknown>;
type ById = RouteInput<{ tool_id: string }, unknown, unknown, unknown>;

const NOT_FOUND = 'Tool not found';
const listed = { '200': { description: '{tools, total}', body: toolList } };
const info = { '200': { description: 'Tool', body: toolInfo }, '404': NOT_FOUND };

/** The caller's tools, a page of them (GET /v3/tools/ and GET /v3/tools/all/user, what public clients call). */
async function list(service: ToolService, { req, query }: Page) {
  const { items, total } = await service.list(principalOf(req), query.skip, query.limit);
  const body: { tools: ToolListItem[]; total: number } = { tools: items.map(listItem), total };
  return body;
}

/** A tool's info (GET /v3/tools/openapi/{tool_id} and GET /v3/tools/{tool_id}). */
const read = async (service: ToolService, { req, params }: ById) =>
  detail(await service.get(principalOf(req), params.tool_id));

/** /v3/tools routes and the tool catalog of /v3/providers/tools/all. Fixed paths come first. */
export const toolRoutes: Route<ToolService>[] = [
  route({
    method: 'post',
    path: '/v3/tools/',
    summary: 'Import a tool set: one tool per operation',
    body: createBody,
    responses: {
      '201': { description: 'One tool per operation', body: toolSetCreated },
      '409': 'A set of that name exists',
    },
    handle: async (service: ToolService, { req, body }) => ({ tool_ids: await service.create(principalOf(req), body) }),
  }),
  route({
    method: 'get',
    path: '/v3/tools/',
    summary: "List the caller's tools",
    query: listQuery,
    responses: listed,
    handle: list,
  }),
  route({
    method: 'get',
    path: '/v3/tools/all/user',
    summary: "List the caller's tools (same as GET /v3/tools/)",
    query: listQuery,
    responses: listed,
    handle: list,
  }),
  route({
    method: 'post',
    path: '/v3/tools/bulk-delete',
    summary: "Delete several of the caller's tools",
    body: bulkDeleteBody,
    responses: { '200': { description: 'Deleted count and the ids not found', body: bulkDeleteResult } },
    handle: (service: ToolService, { req, body }) => service.bulkDelete(principalOf(req), body.tool_ids),
  }),
  route({
    method: 'get',
    path: '/v3/providers/tools/all',
    summary: "The caller's tools as a provider catalog",
    query: listQuery,
    responses: { '200': { description: '{tools, total}', body: toolCatalog } },
    handle: async (service: ToolService, { req, query }) => {
      const { items, total } = await service.list(principalOf(req), query.skip, query.limit);
      const body: { tools: ToolCatalogItem[]; total: number } = { tools: items.map(catalogItem), total };
      return body;
    },
  }),
  route({
    method: 'get',
    path: '/v3/tools/openapi/{tool_id}',
    summary: 'Tool info: {id, name, openapi_schema, paths} and settings',
    params: toolIdPath,
    responses: info,
    handle: read,
  }),
  route({
    method: 'post',
    path: '/v3/tools/openapi/{tool_id}/execute',
    summary: 'Call one of the document’s operations',
    params: toolIdPath,
    query: executeQuery,
    body: executeBody,
    bodyOptional: true,
    responses: {
      '200': { description: 'The remote answer, whatever its status', body: executeResult },
      '404': NOT_FOUND,
      '409': 'Tool is disabled',
      '502': 'Unreachable, refused, timed out or too large',
    },
    handle: (service: ToolService, { req, params, query, body }) =>
      service.execute(principalOf(req), params.tool_id, {
        path: query.path,
        method: query.method.toLowerCase() as HttpMethod,
        body: req.body === undefined ? undefined : body, // no body: the call sends none
      }),
  }),
  route({
    method: 'get',
    path: '/v3/tools/{tool_id}',
    summary: 'Same as /v3/tools/openapi/{tool_id}',
    params: toolIdPath,
    responses: info,
    handle: read,
  }),
  route({
    method: 'put',
    path: '/v3/tools/{tool_id}',
    summary: 'Update the given fields',
    params: toolIdPath,
    body: updateBody,
    responses: { '200': { description: 'Updated', body: agentMessage }, '404': NOT_FOUND },
    handle: async (service: ToolService, { req, params, body }) => {
      await service.update(principalOf(req), params.tool_id, body);
      return { message: 'Tool updated successfully' };
    },
  }),
  route({
    method: 'patch',
    path: '/v3/tools/{tool_id}',
    summary: 'Enable or disable',
    params: toolIdPath,
    query: toggleQuery,
    responses: { '200': { description: 'Toggled', body: agentMessage }, '404': NOT_FOUND },
    handle: async (service: ToolService, { req, params, query }) => {
      await service.setEnabled(principalOf(req), params.tool_id, query.enabled);
      return { message: `Tool ${query.enabled ? 'enabled' : 'disabled'} successfully` };
    },
  }),
  route({
    method: 'delete',
    path: '/v3/tools/{tool_id}',
    summary: 'Delete a tool',
    params: toolIdPath,
    responses: { '204': { description: 'Deleted' }, '404': NOT_FOUND },
    handle: async (service: ToolService, { req, params }) => {
      await service.delete(principalOf(req), params.tool_id);
    },
  }),
];
