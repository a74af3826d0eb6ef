import { commonWords, firstNames, lastNames, majorPlaces, places, regions } from '@platform/gazetteer';

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
/** Entities one chunk may name (a chunk is ~1,000 characters; this bounds a caller's very long text). */
export const MAX_LOCAL_ENTITIES = 200;
/** A run of more capitalised words than this is a heading or shouting, not a name. */
const MAX_RUN_TOKENS = 8;

export const trimName = (s: string) => s.replace(/^[\s"'“”‘’([]+|[\s"'“”‘’.,;:!?)\]]+$/g, '').replace(/\s+/g, ' ');
/** A relation type from a verb or a model's label: upper snake case, at most 40 characters. */
export const relationType = (verb: string) =>
  verb
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40) || 'MENTIONED_WITH';

const words = (s: string) => new Set(s.split(' '));
/** Lower-case words allowed inside a name when capitalised words follow ("Bank of England", "Ludwig van Beethoven"). */
const CONNECTORS = words('of de da di du des del della der den van von la le el al bin ibn y &');
/** Words before a name that make it a person ("Dr Jane Smith"); lower case, without the dot. */
const TITLES = words(
  'mr mrs ms miss mx dr prof professor sir dame lady lord st president senator sen rep gov governor mayor judge justice rev reverend fr capt captain gen general col lt sgt king queen prince princess pope saint',
);
/** Capitalised words that are never names on their own: the pronoun, days and months. */
const NOT_NAMES = words(
  'I monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december',
);
/** Words that start sentences capitalised and are not names, beyond the common-word list (which lacks most of them). */
const SENTENCE_WORDS = words(
  'however meanwhile although though furthermore moreover nevertheless nonetheless according thanks what how why where when who whom whose which yes no hello hi hey please whether unfortunately fortunately additionally finally firstly secondly instead otherwise therefore hence',
);
/** Words that make a run an organisation: its last word ("Acme Corp"), or its first before "of" ("Bank of England"). */
const ORG_WORDS = words(
  'inc incorporated corp corporation co company ltd limited llc llp plc gmbh ag sa sas srl bv nv oy ab kk group holdings bank university college institute foundation agency association society council committee commission ministry department authority organisation organization party union league federation club team labs laboratory laboratories systems technologies partners ventures capital airlines airways motors industries enterprises studios records press media networks school academy hospital church museum',
);
/** Abbreviations that are places ("UK", not an organisation though it is an acronym). */
const PLACE_ACRONYMS = words('US USA UK UAE EU NYC DC');
/** Verbs that do not end in -ed or -s (lower case). */
const IRREGULAR_VERBS = words(
  'is are was were be been being am has have had do does did will would can could might shall should must became become made make built buy bought sold sell won win lost lose led lead leads met meet wrote write took take gave give left began begin found ran run held told said saw knew went came grew paid own taught fought brought sent spent kept caught thought beat chose drew drove flew hit set shut stood struck threw understood wore became agreed freed born known shown grown given taken done gone seen joined acquire acquires hire join marry married founded visit',
);
/** Lower-case words ending in -s or -ed that are not verbs between two names. */
const NOT_VERBS = words(
  'as us his its this thus plus yes was has is does goes always sometimes perhaps besides towards afterwards whereas unless across less news series species various famous previous red bed hundred indeed need seed speed feed shed wed sled united',
);

const LETTER_UPPER = /^[\p{Lu}\p{Lt}]/u;
const ACRONYM = /^\p{Lu}{2,6}$/u;
/**
 * Word tokens: a letter or digit, then letters, marks and digits, with single inner apostrophes, hyphens, dots (a
 * lookahead of one character: linear, no backtracking); "&" is a token of its own.
 */
const TOKEN = /[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}]|['’.-](?=[\p{L}\p{N}]))*|&/gu;
const GAP_SPACES = /^[ \t\u00a0]+$/;
const GAP_DOT = /^\.[ \t\u00a0]+$/;

interface Token {
  word: string;
  start: number;
  end: number;
  /** The gap before it joins it to the previous token inside a name (spaces only, or "Dr. " / "J. "). */
  joins: boolean;
  /** A possessive ("Ada's"): the name ends with this token. */
  closes: boolean;
}

const isCap = (t: Token) => LETTER_UPPER.test(t.word) && !NOT_NAMES.has(t.word) && !NOT_NAMES.has(t.word.toLowerCase());
const abbreviation = (word: string) =>
  TITLES.has(word.toLowerCase()) || (word.length === 1 && LETTER_UPPER.test(word)) || word.includes('.');

/**
 * The text's sentences as token lists: split on . ! ? (a dot not after a title or an initial, nor before a lower-case
 * word) and on line breaks.
 */
function sentencesOf(text: string): Token[][] {
  const sentences: Token[][] = [];
  let current: Token[] = [];
  let prev: Token | undefined;
  for (const m of text.matchAll(TOKEN)) {
    let word = m[0];
    const start = m.index;
    let closes = false;
    if (/['’]s$/.test(word) && word.length > 2) {
      word = word.slice(0, -2);
      closes = true;
    }
    const gap = prev ? text.slice(prev.end, start) : '';
    let joins = false;
    if (prev) {
      const breaks =
        /[!?\n]/.test(gap) ||
        (gap.includes('.') && !(abbreviation(prev.word) && GAP_DOT.test(gap)) && !/^\p{Ll}/u.test(word));
      if (breaks && current.length) {
        sentences.push(current);
        current = [];
      } else {
        joins = !prev.closes && (GAP_SPACES.test(gap) || (GAP_DOT.test(gap) && abbreviation(prev.word)));
      }
    }
    const token: Token = { word, start, end: start + word.length, joins, closes };
    current.push(token);
    prev = token;
  }
  if (current.length) sentences.push(current);
  return sentences;
}

/** The end (exclusive) of the run of capitalised tokens starting at `i`, connectors allowed between them. */
function runEnd(tokens: Token[], i: number): number {
  let j = i + 1;
  while (j < tokens.length && tokens[j]!.joins) {
    const t = tokens[j]!;
    if (isCap(t)) j++;
    else {
      // One or two connectors, then a capitalised word ("van der Berg").
      let k = j;
      while (k < j + 2 && tokens[k]?.joins && CONNECTORS.has(tokens[k]!.word)) k++;
      if (k === j || !tokens[k]?.joins || !isCap(tokens[k]!)) break;
      j = k + 1;
    }
  }
  return j;
}

function typeOf(run: Token[], name: string): ExtractedEntity['type'] {
  const low = name.toLowerCase();
  const first = run[0]!.word.toLowerCase();
  const last = run[run.length - 1]!.word.toLowerCase();
  if (run.length > 1 && (ORG_WORDS.has(last) || (ORG_WORDS.has(first) && run[1]!.word === 'of'))) return 'ORGANIZATION';
  if (PLACE_ACRONYMS.has(name) || places().has(low) || majorPlaces().has(low) || regions().has(low)) return 'PLACE';
  if (run.length > 1 && TITLES.has(first)) return 'PERSON';
  if (
    run.length >= 2 &&
    run.length <= 4 &&
    firstNames().has(first) &&
    run.every((t) => isCap(t) || CONNECTORS.has(t.word))
  )
    return 'PERSON';
  if (run.length === 2 && lastNames().has(last) && !commonWords().has(first)) return 'PERSON';
  if (run.length === 1 && ACRONYM.test(name)) return 'ORGANIZATION';
  return 'THING';
}

/** A lower-case word that reads as the verb between two names: an -ed or -s form, or a known irregular verb. */
function isVerb(word: string): boolean {
  if (!/^\p{Ll}+$/u.test(word) || NOT_VERBS.has(word)) return IRREGULAR_VERBS.has(word);
  if (IRREGULAR_VERBS.has(word)) return true;
  if (word.length >= 4 && word.endsWith('ed')) return true;
  return word.length >= 4 && word.endsWith('s') && !/(?:ss|us|is|'s)$/.test(word);
}

/** Auxiliaries, after which the next verb belongs to the same phrase ("is located", "has been acquired"). */
const AUXILIARIES = words(
  'is are was were be been being has have had will would can could may might shall should must do does did',
);

/** The first verb phrase among tokens [from, to): a verb-like word, with the verbs after it while it is an auxiliary. */
function verbBetween(tokens: Token[], from: number, to: number): string | undefined {
  for (let k = from; k < to; k++) {
    if (!isVerb(tokens[k]!.word)) continue;
    const phrase = [tokens[k]!.word];
    while (AUXILIARIES.has(phrase[phrase.length - 1]!) && k + 1 < to && isVerb(tokens[k + 1]!.word))
      phrase.push(tokens[++k]!.word);
    return phrase.join(' ');
  }
  return undefined;
}

/**
 * Entities and relations by rules over word tokens and the shared word lists (local, no model, well under a
 * millisecond per chunk): runs of capitalised words are names; a person when the run starts with a first name or a
 * title, a place when it is a known place, an organisation when it ends in an organisation word or is an acronym,
 * else a thing. A capitalised common word that starts a sentence ("The", "However") is not a name. Within a sentence,
 * consecutive mentions are related by the verb between them, or MENTIONED_WITH when there is none.
 */
export function createLocalExtractor(): EntityExtractor {
  return {
    extract(text) {
      const sentences = sentencesOf(text);
      const entities = new Map<string, ExtractedEntity>();
      for (const tokens of sentences) {
        for (let i = 0; i < tokens.length && entities.size < MAX_LOCAL_ENTITIES;) {
          if (!isCap(tokens[i]!)) {
            i++;
            continue;
          }
          const end = runEnd(tokens, i);
          let from = i;
          // A capitalised common word at the start of a sentence is not a name ("The Bank of England" → "Bank of
          // England"), unless a first name or title leads a longer run ("Will Smith").
          const lead = i === 0 ? tokens[0]!.word.toLowerCase() : '';
          if (lead && (commonWords().has(lead) || SENTENCE_WORDS.has(lead))) {
            if (end === 1 || !(firstNames().has(lead) || TITLES.has(lead))) from = 1;
          }
          const run = tokens.slice(from, end);
          i = end;
          if (!run.length || run.length > MAX_RUN_TOKENS) continue;
          const name = trimName(text.slice(run[0]!.start, run[run.length - 1]!.end));
          const key = name.toLowerCase();
          if (name.length < 2 || name.length > MAX_ENTITY_CHARS) continue;
          const type = typeOf(run, name);
          const known = entities.get(key);
          if (!known) entities.set(key, { key, name, type });
          else if (known.type === 'THING' && type !== 'THING') known.type = type;
        }
      }
      // Pass 2: every mention of a known entity (also where pass 1 skipped it, e.g. first word of a sentence);
      // consecutive mentions in a sentence are related by the verb between them.
      const names = namesByFirstWord(entities);
      const relations: ExtractedRelation[] = [];
      const mentioned = new Set<string>();
      for (const tokens of sentences) {
        const spans = mentionsIn(tokens, names);
        for (const m of spans) mentioned.add(m.entity.key);
        for (let i = 0; i + 1 < spans.length; i++) {
          const a = spans[i]!;
          const b = spans[i + 1]!;
          const verb = verbBetween(tokens, a.end, b.at);
          relations.push({
            source: a.entity.key,
            target: b.entity.key,
            type: verb ? relationType(verb) : 'MENTIONED_WITH',
          });
        }
      }
      return Promise.resolve({ entities: [...entities.values()].filter((e) => mentioned.has(e.key)), relations });
    },
  };
}

interface Name {
  entity: ExtractedEntity;
  words: string[];
}

/** The entities' names as word lists, grouped by first word, longest first. */
function namesByFirstWord(entities: Map<string, ExtractedEntity>): Map<string, Name[]> {
  const byFirst = new Map<string, Name[]>();
  for (const entity of entities.values()) {
    const ws = [...entity.name.matchAll(TOKEN)].map((m) => m[0]);
    if (!ws.length) continue;
    const list = byFirst.get(ws[0]!) ?? [];
    list.push({ entity, words: ws });
    byFirst.set(ws[0]!, list);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.words.length - a.words.length);
  return byFirst;
}

/** Where known entities are named in a sentence (whole words, longest name first), as token ranges in order. */
function mentionsIn(
  tokens: Token[],
  names: Map<string, Name[]>,
): { entity: ExtractedEntity; at: number; end: number }[] {
  const spans: { entity: ExtractedEntity; at: number; end: number }[] = [];
  for (let i = 0; i < tokens.length;) {
    const hit = names
      .get(tokens[i]!.word)
      ?.find(
        (n) =>
          i + n.words.length <= tokens.length &&
          n.words.every((w, k) => tokens[i + k]!.word === w && (k === 0 || tokens[i + k]!.joins)),
      );
    if (!hit) {
      i++;
      continue;
    }
    spans.push({ entity: hit.entity, at: i, end: i + hit.words.length });
    i += hit.words.length;
  }
  return spans;
}
