/**
 * What a KNOWLEDGE_BASE feature's `config` asks for, in either shape public clients send:
 * ours, `{rag_id, top_k?, score_threshold?}`, and the hosted product's,
 * `{lyzr_rag: {rag_id, rag_name, base_url, params: {top_k, score_threshold, retrieval_type}}, agentic_rag: [{rag_id}],
 * oneshot_rag: [{rag_id}]}`. Pure: read by the save-time check (agents) and by the feature at chat time.
 */

/** The feature type, upper case (types match case-insensitively). */
export const KNOWLEDGE_BASE = 'KNOWLEDGE_BASE';

/** Chunks sent when the feature names no `top_k`. */
export const DEFAULT_TOP_K = 5;
/** Most chunks one feature puts into the prompt, whatever `top_k` asks. */
export const MAX_TOP_K = 20;
/** Most RAG configurations one feature may name (each is asked at every chat). */
export const MAX_RAG_IDS = 10;

/** How RAG configuration ids look (contract §1): anything else names no configuration of ours. */
const RAG_ID = /^[0-9a-f]{24}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function idOf(holder: unknown): string | undefined {
  if (!isObject(holder)) return undefined;
  const id = holder.rag_id;
  return typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined;
}

/** True when `type` is the KNOWLEDGE_BASE feature's. */
export const isKnowledgeBase = (type: string): boolean => type.trim().toUpperCase() === KNOWLEDGE_BASE;

/**
 * Every rag id the config names, once each, in this order: `rag_id`, `lyzr_rag.rag_id`, then the `rag_id` of each
 * `agentic_rag[]` and `oneshot_rag[]` entry. Empty: the feature names none.
 */
export function ragIdsOf(config: Record<string, unknown>): string[] {
  const entries = (key: string) => (Array.isArray(config[key]) ? (config[key] as unknown[]) : []);
  const ids = [
    idOf(config),
    idOf(config.lyzr_rag),
    ...entries('agentic_rag').map(idOf),
    ...entries('oneshot_rag').map(idOf),
  ];
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/** True when `id` can name a RAG configuration at all (a 24-char lowercase hex id). */
export const isRagId = (id: string): boolean => RAG_ID.test(id);

const numberOf = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `lyzr_rag.params` when it is an object. */
const hostedParams = (config: Record<string, unknown>): Record<string, unknown> =>
  isObject(config.lyzr_rag) && isObject(config.lyzr_rag.params) ? config.lyzr_rag.params : {};

/** `config.top_k`, else `lyzr_rag.params.top_k`, when an integer ≥ 1 (capped at MAX_TOP_K); else the default. */
export function topKOf(config: Record<string, unknown>): number {
  const n = numberOf(config.top_k) ?? numberOf(hostedParams(config).top_k);
  if (n === undefined || !Number.isInteger(n) || n < 1) return DEFAULT_TOP_K;
  return Math.min(n, MAX_TOP_K);
}

/** `config.score_threshold`, else `lyzr_rag.params.score_threshold`: results scoring below it are dropped. */
export function scoreThresholdOf(config: Record<string, unknown>): number | undefined {
  return numberOf(config.score_threshold) ?? numberOf(hostedParams(config).score_threshold);
}
