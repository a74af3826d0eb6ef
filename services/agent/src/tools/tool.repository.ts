import { findPage, isDuplicateKeyError, mongoose, ownerFilter, type Connection } from '@platform/db';

import { toolModel, type ToolDoc } from './tool.model';
import type { HttpMethod, NewTool, Owner, ToolChanges, ToolRecord } from './tool.types';

const JSON_FIELDS = {
  parameters: 'parameters_json',
  openapi_schema: 'openapi_schema_json',
  default_headers_sealed: 'default_headers_json',
  default_query_params: 'default_query_params_json',
  default_body_params: 'default_body_params_json',
  endpoint_defaults: 'endpoint_defaults_json',
} as const;

const parse = (text: string | undefined) => JSON.parse(text ?? '{}') as Record<string, never>;

function toRecord(d: ToolDoc): ToolRecord {
  return {
    tool_id: d.tool_id,
    user_id: d.user_id,
    org_id: d.org_id,
    tool_set_name: d.tool_set_name,
    name: d.name,
    description: d.description,
    method: d.method as HttpMethod,
    path: d.path,
    operation_id: d.operation_id ?? null,
    parameters: parse(d.parameters_json),
    openapi_schema: parse(d.openapi_schema_json),
    default_headers_sealed: parse(d.default_headers_json),
    default_query_params: parse(d.default_query_params_json),
    default_body_params: parse(d.default_body_params_json),
    endpoint_defaults: parse(d.endpoint_defaults_json),
    enabled: d.enabled,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at ? d.updated_at.toISOString() : null,
  };
}

/** The stored form of some fields: objects as JSON text. */
function toStored(fields: ToolChanges): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    const jsonKey = JSON_FIELDS[k as keyof typeof JSON_FIELDS];
    if (jsonKey) out[jsonKey] = JSON.stringify(v);
    else out[k] = v;
  }
  return out;
}

/** Tools in MongoDB, every query scoped to the owner (user and org). */
export function createToolRepository(conn: Connection) {
  const Tool = toolModel(conn);
  const scoped = (owner: Owner, toolId: string) => ({ ...ownerFilter(owner), tool_id: toolId });
  return {
    async setExists(owner: Owner, toolSetName: string): Promise<boolean> {
      return (await Tool.exists({ ...ownerFilter(owner), tool_set_name: toolSetName })) !== null;
    },
    /** Inserts a whole set; false (and nothing kept) when one of its ids already exists for the owner. */
    async createMany(owner: Owner, tools: NewTool[], now: Date): Promise<boolean> {
      const docs = tools.map((t) => ({
        _id: new mongoose.Types.ObjectId(),
        ...toStored(t),
        ...owner,
        created_at: now,
      }));
      try {
        await Tool.insertMany(docs, { ordered: true });
        return true;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        await Tool.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
        return false;
      }
    },
    async get(owner: Owner, toolId: string): Promise<ToolRecord | null> {
      const d = await Tool.findOne(scoped(owner, toolId)).lean();
      return d ? toRecord(d) : null;
    },
    list: (owner: Owner, skip: number, limit: number): Promise<{ items: ToolRecord[]; total: number }> =>
      findPage(Tool, ownerFilter(owner), { skip, limit }, (d) => toRecord(d as ToolDoc)),
    /**
     * The owner's tools named by id or by set name (`openapi-<set>`), oldest first: one lookup by each of the two
     * indexes, merged (an agent names a few).
     */
    async findByRefs(owner: Owner, refs: string[]): Promise<ToolRecord[]> {
      if (refs.length === 0) return [];
      const [byId, bySet] = await Promise.all([
        Tool.find({ ...ownerFilter(owner), tool_id: { $in: refs } }).lean(),
        Tool.find({ ...ownerFilter(owner), tool_set_name: { $in: refs } }).lean(),
      ]);
      const unique = new Map([...byId, ...bySet].map((d) => [d._id.toHexString(), d]));
      return [...unique.entries()]
        .sort(([a, x], [b, y]) => x.created_at.getTime() - y.created_at.getTime() || (a < b ? -1 : 1))
        .map(([, d]) => toRecord(d));
    },
    async update(
      owner: Owner,
      toolId: string,
      changes: ToolChanges & { enabled?: boolean },
      now: Date,
    ): Promise<ToolRecord | null> {
      const d = await Tool.findOneAndUpdate(
        scoped(owner, toolId),
        { $set: { ...toStored(changes), updated_at: now } },
        { returnDocument: 'after' },
      ).lean();
      return d ? toRecord(d) : null;
    },
    async delete(owner: Owner, toolId: string): Promise<boolean> {
      return (await Tool.deleteOne(scoped(owner, toolId))).deletedCount === 1;
    },
    /** Deletes the owner's tools among `toolIds`; returns the ids it found and how many it deleted. */
    async deleteMany(owner: Owner, toolIds: string[]): Promise<{ found: string[]; deleted: number }> {
      const filter = { ...ownerFilter(owner), tool_id: { $in: toolIds } };
      const found = (await Tool.find(filter, { tool_id: 1 }).lean()).map((d) => d.tool_id);
      if (found.length === 0) return { found, deleted: 0 };
      const { deletedCount } = await Tool.deleteMany({ ...ownerFilter(owner), tool_id: { $in: found } });
      return { found, deleted: deletedCount };
    },
    async init(): Promise<void> {
      await Tool.init();
    },
  };
}

export type ToolRepository = ReturnType<typeof createToolRepository>;
