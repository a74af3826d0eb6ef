import nlp from 'compromise';

/** An entity found in one chunk. */
export interface ExtractedEntity {
  /** Lower-case name: the entity's identity within a graph. */
  key: string;
  name: string;
  type: 'PERSON' | 'PLACE' | 'ORGANIZATION' | 'THING';
}

/** A relation found in one chunk, between two entity keys. */
export interface ExtractedRelation {
  source: string;
  target: string;
  /** The verb that joins them (`FOUNDED`, `IS_LOCATED`), or `MENTIONED_WITH` for a plain co-occurrence. */
  type: string;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/** Turns a chunk of text into entities and relations. */
export interface EntityExtractor {
  extract(text: string): Promise<Extraction>;
}

export const MAX_ENTITY_CHARS = 80;
/** compromise's full document type (its `forEach` hands out the base view type). */
type Doc = ReturnType<typeof nlp>;
export const trimName = (s: string) => s.replace(/^[\s"'“”‘’([]+|[\s"'“”‘’.,;:!?)\]]+$/g, '').replace(/\s+/g, ' ');
/** A relation type from a verb or a model's label: upper snake case, at most 40 characters. */
export const relationType = (verb: string) =>
  verb
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40) || 'MENTIONED_WITH';

/**
 * Entities and relations by compromise (local, no model download): people, places and organisations by its
 * lexicon and tagger, other proper-noun runs as THING; within a sentence, consecutive entities are related by the
 * verb between them, or MENTIONED_WITH when there is none.
 */
export function createLocalExtractor(): EntityExtractor {
  return {
    extract(text) {
      const entities = new Map<string, ExtractedEntity>();
      // One parse of the chunk (compromise's tagger is the cost); sentences are views of it, not new parses.
      const parsed: { text: string; verbs: string[] }[] = [];
      nlp(text)
        .sentences()
        .forEach((view) => {
          const s = view as Doc;
          parsed.push({ text: s.text(), verbs: s.verbs().out('array') as string[] });
          const typed: [string[], ExtractedEntity['type']][] = [
            [s.people().out('array') as string[], 'PERSON'],
            [s.places().out('array') as string[], 'PLACE'],
            [s.organizations().out('array') as string[], 'ORGANIZATION'],
            [s.match('#ProperNoun+').out('array') as string[], 'THING'],
          ];
          for (const [names, type] of typed) {
            for (const raw of names) {
              const name = trimName(raw);
              const key = name.toLowerCase();
              if (name.length < 2 || name.length > MAX_ENTITY_CHARS || entities.has(key)) continue;
              entities.set(key, { key, name, type });
            }
          }
        });
      // Pass 2: every mention of a known entity (also where the tagger missed it, e.g. first word of a sentence);
      // consecutive mentions in a sentence are related by the verb between them.
      const relations: ExtractedRelation[] = [];
      const mentioned = new Set<string>();
      const patterns = patternsOf([...entities.values()]);
      for (const sentence of parsed) {
        const spans = mentionsIn(sentence.text, patterns);
        for (const m of spans) mentioned.add(m.entity.key);
        if (spans.length < 2) continue;
        const verbs = sentence.verbs.map((v) => ({ v, at: sentence.text.indexOf(v) }));
        for (let i = 0; i + 1 < spans.length; i++) {
          const a = spans[i]!;
          const b = spans[i + 1]!;
          const verb = verbs.find((x) => x.at >= a.end && x.at < b.at);
          relations.push({
            source: a.entity.key,
            target: b.entity.key,
            type: verb ? relationType(verb.v) : 'MENTIONED_WITH',
          });
        }
      }
      return Promise.resolve({ entities: [...entities.values()].filter((e) => mentioned.has(e.key)), relations });
    },
  };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Pattern {
  entity: ExtractedEntity;
  re: RegExp;
}

/** One whole-word pattern per entity, longest names first. */
const patternsOf = (entities: ExtractedEntity[]): Pattern[] =>
  [...entities]
    .sort((a, b) => b.name.length - a.name.length)
    .map((entity) => ({ entity, re: new RegExp(`(?<![\\p{L}\\p{N}])${escape(entity.name)}(?![\\p{L}\\p{N}])`, 'gu') }));

/** Where known entities are named in a sentence (whole words; a name inside a longer one is not counted), in order. */
function mentionsIn(sentence: string, patterns: Pattern[]): { entity: ExtractedEntity; at: number; end: number }[] {
  const spans: { entity: ExtractedEntity; at: number; end: number }[] = [];
  for (const { entity, re } of patterns) {
    for (const m of sentence.matchAll(re)) {
      const at = m.index;
      const end = at + entity.name.length;
      if (spans.some((x) => at < x.end && end > x.at)) continue;
      spans.push({ entity, at, end });
    }
  }
  return spans.sort((a, b) => a.at - b.at);
}
