import { createSequence, findPage, fromJsonText, ownerFilter, toJsonText, type Connection } from '@platform/db';

import { agentModel, type AgentDoc } from './agent.model';
import {
  STORED_ONLY_FIELDS,
  type AgentInput,
  type AgentKind,
  type AgentRecord,
  type Feature,
  type Owner,
} from './agent.types';

/** The client's plain (not JSON) settings, stored as sent; unset ones are null. */
const SETTINGS = [
  'description',
  'system_prompt',
  'llm_credential_id',
  'provider_id',
  'model',
  'top_p',
  'temperature',
  'agent_goal',
  'agent_context',
  'agent_output',
  'max_iterations',
  'store_messages',
  'agent_role',
  'agent_instructions',
  'examples',
  'tool',
  'tool_usage_description',
  'template_type',
  'version',
  'max_concurrency',
] as const;
type Settings = { [K in (typeof SETTINGS)[number]]: NonNullable<AgentDoc[K]> | null };

/** The stored name of each stored-only field: its JSON text. */
const storedOnlyName = (field: string) => `${field}_json`;
const STORED_ONLY_NAMES = STORED_ONLY_FIELDS.map((f) => [f, JSON.stringify(f), storedOnlyName(f)] as const);

/**
 * The stored-only fields that are set, as one JSON object text, joined from their stored JSON texts without parsing
 * any (each is what JSON.stringify wrote).
 */
function storedOnlyText(d: AgentDoc): string {
  const doc = d as unknown as Record<string, unknown>;
  const parts: string[] = [];
  for (const [, quoted, name] of STORED_ONLY_NAMES) {
    const text = doc[name];
    if (typeof text === 'string') parts.push(`${quoted}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** A stored agent as the service sees it. Fields a document was written without read as null (or empty lists). */
function toRecord(d: AgentDoc): AgentRecord {
  return {
    id: d._id,
    user_id: d.user_id,
    org_id: d.org_id,
    kind: d.kind,
    name: d.name,
    ...(Object.fromEntries(SETTINGS.map((k) => [k, d[k] ?? null])) as Settings),
    features: (d.features ?? []).map((f) => ({
      type: f.type,
      priority: f.priority,
      config: fromJsonText(f.config_json, f.config ?? {}) as Feature['config'],
    })),
    tools: d.tools ?? [],
    response_format: fromJsonText(d.response_format_json, d.response_format) as AgentRecord['response_format'],
    tool_configs: fromJsonText(d.tool_configs_json, d.tool_configs) as AgentRecord['tool_configs'],
    additional_model_params: fromJsonText(
      d.additional_model_params_json,
      d.additional_model_params,
    ) as AgentRecord['additional_model_params'],
    stored_only_json: storedOnlyText(d),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at ? d.updated_at.toISOString() : null,
  };
}

/** The stored form of a client's input: free-form JSON fields as JSON text. */
function toStored(input: AgentInput) {
  const { features, response_format, tool_configs, additional_model_params, ...plain } = input;
  const rest: Record<string, unknown> = { ...plain };
  for (const field of STORED_ONLY_FIELDS) {
    if (!(field in rest)) continue;
    rest[storedOnlyName(field)] = toJsonText(rest[field]);
    delete rest[field];
  }
  return {
    ...rest,
    features: (features ?? []).map((f) => ({
      type: f.type,
      priority: f.priority,
      config_json: toJsonText(f.config ?? {}) ?? '{}',
    })),
    response_format_json: toJsonText(response_format),
    tool_configs_json: toJsonText(tool_configs),
    additional_model_params_json: toJsonText(additional_model_params),
  };
}

/** Client fields kept as JSON text, by their stored name; documents written before keep the old name (read as legacy). */
const JSON_FIELDS: Record<string, string> = {
  response_format: 'response_format_json',
  tool_configs: 'tool_configs_json',
  additional_model_params: 'additional_model_params_json',
};
/** Stored-only fields, by their stored name (JSON text; never stored under another name). */
const STORED_ONLY_STORED: Record<string, string> = Object.fromEntries(STORED_ONLY_NAMES.map(([f, , n]) => [f, n]));

/** The update of a partial input: `$set` of the stored form of each field sent; a JSON field drops its legacy copy. */
function toPatch(patch: Partial<AgentInput>): { $set: Record<string, unknown>; $unset: Record<string, ''> } {
  const stored: Record<string, unknown> = toStored(patch as AgentInput);
  const $set: Record<string, unknown> = {};
  const $unset: Record<string, ''> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const name = JSON_FIELDS[key];
    if (name) $unset[key] = '';
    const storedName = name ?? STORED_ONLY_STORED[key] ?? key;
    $set[storedName] = stored[storedName];
  }
  return { $set, $unset };
}

/** Agents in MongoDB. Every query is scoped to its owner (user and org). */
export function createAgentRepository(conn: Connection) {
  const Agent = agentModel(conn);
  const nextId = createSequence(conn, 'agents');
  return {
    async create(owner: Owner, kind: AgentKind, input: AgentInput, now: Date): Promise<AgentRecord> {
      const doc = await Agent.create({
        ...toStored(input),
        ...ownerFilter(owner),
        _id: await nextId(),
        kind,
        created_at: now,
      });
      return toRecord(doc.toObject());
    },
    async get(owner: Owner, id: number): Promise<AgentRecord | null> {
      const d = await Agent.findOne({ _id: id, ...ownerFilter(owner) }).lean();
      return d ? toRecord(d) : null;
    },
    /** The owner's newest agent named exactly `name`, or null. */
    async findNewestByName(owner: Owner, name: string): Promise<AgentRecord | null> {
      const d = await Agent.findOne({ ...ownerFilter(owner), name })
        .sort({ created_at: -1, _id: -1 })
        .lean();
      return d ? toRecord(d) : null;
    },
    list: (owner: Owner, skip: number, limit: number): Promise<{ items: AgentRecord[]; total: number }> =>
      findPage(Agent, ownerFilter(owner), { skip, limit }, toRecord),
    /** Replaces the client-settable fields; false when the owner has no such agent of that kind. */
    async replace(
      owner: Owner,
      id: number,
      kind: AgentKind | undefined,
      input: AgentInput,
      now: Date,
    ): Promise<boolean> {
      const filter = { _id: id, ...ownerFilter(owner), ...(kind ? { kind } : {}) };
      const current = await Agent.findOne(filter).lean();
      if (!current) return false;
      const replacement = new Agent({
        ...toStored(input),
        ...ownerFilter(owner),
        _id: id,
        kind: current.kind,
        created_at: current.created_at,
        updated_at: now,
      });
      const r = await Agent.replaceOne(filter, replacement.toObject());
      return r.matchedCount === 1;
    },
    /** Changes only the fields `patch` holds; false when the owner has no such agent of that kind. */
    async patch(
      owner: Owner,
      id: number,
      kind: AgentKind | undefined,
      patch: Partial<AgentInput>,
      now: Date,
    ): Promise<boolean> {
      const filter = { _id: id, ...ownerFilter(owner), ...(kind ? { kind } : {}) };
      const { $set, $unset } = toPatch(patch);
      const update = { $set: { ...$set, updated_at: now }, ...(Object.keys($unset).length > 0 ? { $unset } : {}) };
      const r = await Agent.updateOne(filter, update);
      return r.matchedCount === 1;
    },
    async delete(owner: Owner, id: number): Promise<boolean> {
      const r = await Agent.deleteOne({ _id: id, ...ownerFilter(owner) });
      return r.deletedCount === 1;
    },
    /** Every agent with a `max_concurrency` (of any owner), for republishing the limits: a range of its index. */
    async concurrencyLimits(): Promise<{ id: number; max_concurrency: number }[]> {
      const docs = await Agent.find({ max_concurrency: { $gte: 1 } }, { _id: 1, max_concurrency: 1 }).lean();
      return docs.map((d) => ({ id: d._id, max_concurrency: d.max_concurrency! }));
    },
    async init(): Promise<void> {
      await Agent.init();
    },
  };
}

export type AgentRepository = ReturnType<typeof createAgentRepository>;
