import { Router, type RequestHandler } from 'express';

import { principalOf } from '@platform/auth';
import { validate } from '@platform/http';

import {
  bulkDeleteBody,
  createBody,
  executeBody,
  executeQuery,
  listQuery,
  toggleQuery,
  toolIdPath,
  updateBody,
} from './tool.schemas';
import type { ToolService } from './tool.service';
import type { HttpMethod, ToolCatalogItem, ToolListItem } from './tool.types';
import { catalogItem, detail, listItem } from './tool.views';

const toolId = (params: unknown) => validate(toolIdPath, params, 'path').tool_id;

/** /v3/tools routes and the tool catalog of /v3/providers/tools/all. Fixed paths come first. */
export function createToolRoutes(service: ToolService): Router {
  const r = Router();

  r.post('/v3/tools', async (req, res) => {
    const input = validate(createBody, req.body, 'body');
    res.status(201).json({ tool_ids: await service.create(principalOf(req), input) });
  });

  // GET /v3/tools/all/user is what public clients call for the same list.
  const list: RequestHandler = async (req, res) => {
    const { skip, limit } = validate(listQuery, req.query, 'query');
    const { items, total } = await service.list(principalOf(req), skip, limit);
    const body: { tools: ToolListItem[]; total: number } = { tools: items.map(listItem), total };
    res.json(body);
  };
  r.get('/v3/tools', list);
  r.get('/v3/tools/all/user', list);

  r.post('/v3/tools/bulk-delete', async (req, res) => {
    const { tool_ids } = validate(bulkDeleteBody, req.body, 'body');
    res.json(await service.bulkDelete(principalOf(req), tool_ids));
  });

  r.get('/v3/providers/tools/all', async (req, res) => {
    const { skip, limit } = validate(listQuery, req.query, 'query');
    const { items, total } = await service.list(principalOf(req), skip, limit);
    const body: { tools: ToolCatalogItem[]; total: number } = { tools: items.map(catalogItem), total };
    res.json(body);
  });

  r.get('/v3/tools/openapi/:tool_id', async (req, res) => {
    res.json(detail(await service.get(principalOf(req), toolId(req.params))));
  });

  r.post('/v3/tools/openapi/:tool_id/execute', async (req, res) => {
    const id = toolId(req.params);
    const { path, method } = validate(executeQuery, req.query, 'query');
    const body = req.body === undefined ? undefined : validate(executeBody, req.body, 'body');
    res.json(await service.execute(principalOf(req), id, { path, method: method.toLowerCase() as HttpMethod, body }));
  });

  r.get('/v3/tools/:tool_id', async (req, res) => {
    res.json(detail(await service.get(principalOf(req), toolId(req.params))));
  });

  r.put('/v3/tools/:tool_id', async (req, res) => {
    const id = toolId(req.params);
    await service.update(principalOf(req), id, validate(updateBody, req.body, 'body'));
    res.json({ message: 'Tool updated successfully' });
  });

  r.patch('/v3/tools/:tool_id', async (req, res) => {
    const id = toolId(req.params);
    const { enabled } = validate(toggleQuery, req.query, 'query');
    await service.setEnabled(principalOf(req), id, enabled);
    res.json({ message: `Tool ${enabled ? 'enabled' : 'disabled'} successfully` });
  });

  r.delete('/v3/tools/:tool_id', async (req, res) => {
    await service.delete(principalOf(req), toolId(req.params));
    res.status(204).end();
  });

  return r;
}
