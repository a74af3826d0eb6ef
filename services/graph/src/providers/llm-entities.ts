import Ajv from 'ajv';

import { postProvider, type ProviderCall } from '@platform/retrieval';

import {
  MAX_ENTITY_CHARS,
  relationType,
  trimName,
  type EntityExtractor,
  type ExtractedEntity,
  type Extraction,
} from '../pipeline/entities';

/** At most this many entities and relations are taken from one chunk's answer; the rest is ignored. */
export const LLM_MAX_ENTITIES = 50;
export const LLM_MAX_RELATIONS = 100;

const name = { type: 'string', minLength: 1, maxLength: 200 };
/** The answer asked of the model; extra properties are tolerated, missing or mistyped ones are not. */
const answerSchema = {
  type: 'object',
  required: ['entities', 'relations'],
  properties: {
    entities: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        required: ['name', 'type'],
        properties: { name, type: { type: 'string', maxLength: 100 } },
      },
    },
    relations: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['source', 'target', 'type'],
        properties: { source: name, target: name, type: { type: 'string', maxLength: 100 } },
      },
    },
  },
};
interface Answer {
  entities: { name: string; type: string }[];
  relations: { source: string; target: string; type: string }[];
}
const validateAnswer = new Ajv({ allErrors: false }).compile<Answer>(answerSchema);

const SYSTEM_PROMPT =
  'You extract a knowledge graph from text. Answer with one JSON object only: ' +
  '{"entities":[{"name":string,"type":"PERSON"|"PLACE"|"ORGANIZATION"|"THING"}],' +
  '"relations":[{"source":entity name,"target":entity name,"type":UPPER_SNAKE_CASE verb such as FOUNDED or IS_LOCATED_IN}]}. ' +
  'Only entities named in the text; relations only between listed entities.';

const TYPES = new Set<ExtractedEntity['type']>(['PERSON', 'PLACE', 'ORGANIZATION', 'THING']);
const entityType = (t: string): ExtractedEntity['type'] => {
  const u = t.trim().toUpperCase() as ExtractedEntity['type'];
  return TYPES.has(u) ? u : u === ('ORGANISATION' as string) ? 'ORGANIZATION' : 'THING';
};

/** The model's JSON answer, checked against the schema and capped; throws when it does not fit. */
export function parseLlmAnswer(content: unknown): Extraction {
  if (typeof content !== 'string') throw new Error('no message content');
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    throw new Error('content is not JSON');
  }
  if (!validateAnswer(json))
    throw new Error(`content does not match the schema: ${validateAnswer.errors?.[0]?.message ?? 'invalid'}`);
  const entities = new Map<string, ExtractedEntity>();
  for (const e of json.entities) {
    const n = trimName(e.name);
    const key = n.toLowerCase();
    if (n.length < 2 || n.length > MAX_ENTITY_CHARS || entities.has(key)) continue;
    entities.set(key, { key, name: n, type: entityType(e.type) });
    if (entities.size >= LLM_MAX_ENTITIES) break;
  }
  const relations = json.relations
    .map((r) => ({
      source: trimName(r.source).toLowerCase(),
      target: trimName(r.target).toLowerCase(),
      type: relationType(r.type),
    }))
    .filter((r) => entities.has(r.source) && entities.has(r.target) && r.source !== r.target)
    .slice(0, LLM_MAX_RELATIONS);
  return { entities: [...entities.values()], relations };
}

/** Counts of one training's extractions: by the model, and fallen back to the local library. */
export interface ExtractionStats {
  llm: number;
  fallbacks: number;
}

/**
 * Entities and relations by the RAG configuration's LLM (OpenAI protocol, `response_format: json_object`), the
 * answer validated. Any failure for a chunk (HTTP error, time limit, no JSON, schema mismatch) → the local
 * extractor for that chunk, counted in `stats`.
 */
export function createLlmExtractor(deps: {
  call: ProviderCall;
  fallback: EntityExtractor;
  stats: ExtractionStats;
  onFallback(reason: string): void;
}): EntityExtractor {
  return {
    async extract(text) {
      try {
        const data = (await postProvider(deps.call, '/chat/completions', {
          temperature: 0,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: text },
          ],
        })) as { choices?: { message?: { content?: unknown } }[] };
        const found = parseLlmAnswer(data.choices?.[0]?.message?.content);
        deps.stats.llm++;
        return found;
      } catch (err) {
        deps.stats.fallbacks++;
        deps.onFallback((err as Error).message);
        return deps.fallback.extract(text);
      }
    },
  };
}
