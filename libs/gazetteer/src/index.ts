import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package's word lists (`data/*.txt`, generated: see README.md), beside `src/` and `dist/` alike. */
const DATA_DIR = join(__dirname, '..', 'data');

/** A list of `data/`, one entry a line, as a '|'-separated string. */
const readList = (name: string): string =>
  readFileSync(join(DATA_DIR, `${name}.txt`), 'utf8')
    .trimEnd()
    .split('\n')
    .join('|');

/**
 * Word lists for telling names and places from other words, without a tagger: lower-cased, '|'-separated strings
 * (read from the package's data files at load), and the same lists as Sets, each built on first use and then shared.
 */
export const FIRST_NAMES = readList('first-names');
export const LAST_NAMES = readList('last-names');
export const PLACES = readList('places');
export const MAJOR_PLACES = readList('major-places');
export const COMMON_WORDS = readList('common-words');

const lazySet = (list: string): (() => ReadonlySet<string>) => {
  let set: ReadonlySet<string> | undefined;
  return () => (set ??= new Set(list.split('|')));
};

/** First names of every faker locale ("ada", "björn", "aaliyah"), lower case. */
export const firstNames = lazySet(FIRST_NAMES);
/** Last names of every faker locale ("lovelace", "müller"), lower case. */
export const lastNames = lazySet(LAST_NAMES);
/** Cities of ≥ 15,000 people and every country (English and native name) and capital, lower case. */
export const places = lazySet(PLACES);
/** Cities of ≥ 250,000 people ("london", "tokyo"): places common enough to be read in lower case too. */
export const majorPlaces = lazySet(MAJOR_PLACES);
/** The lower-case words among the 20,000 most frequent English words ("the", "founded", "market"). */
export const commonWords = lazySet(COMMON_WORDS);

/** A list of `data/` as a Set, read from its file on first use (lists only some services need). */
const lazyFileSet = (name: string): (() => ReadonlySet<string>) => {
  let set: ReadonlySet<string> | undefined;
  return () => (set ??= new Set(readList(name).split('|')));
};

/**
 * Words on no list that GloVe's vectors place among people's names ("trudeau", "keenum") or among places ("kobane"),
 * lower case, one word each (~99,000 and ~33,000; `services/rai/scripts/build-vector-names.ts`), listed at a precision
 * of 0.9 on held-out words of the other lists and lower on rarer words: read capitalised words with them, not every
 * word.
 */
export const vectorPersons = lazyFileSet('vector-persons');
export const vectorPlaces = lazyFileSet('vector-places');

/** US states, Canadian provinces, UK nations, continents and well-known regions, lower case: places no city list has. */
export const REGIONS =
  'alabama|alaska|arizona|arkansas|california|colorado|connecticut|delaware|florida|georgia|hawaii|idaho|illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|minnesota|mississippi|missouri|montana|nebraska|nevada|new hampshire|new jersey|new mexico|new york|north carolina|north dakota|ohio|oklahoma|oregon|pennsylvania|rhode island|south carolina|south dakota|tennessee|texas|utah|vermont|virginia|washington|west virginia|wisconsin|wyoming|alberta|british columbia|manitoba|new brunswick|newfoundland|nova scotia|ontario|quebec|saskatchewan|england|scotland|wales|northern ireland|bavaria|catalonia|andalusia|tuscany|sicily|siberia|queensland|tasmania|victoria|new south wales|punjab|kerala|bengal|kashmir|gaza|west bank|silicon valley|bay area|midwest|europe|asia|africa|antarctica|north america|south america|latin america|middle east|caribbean|scandinavia|balkans|vegas|hollywood|brooklyn|manhattan|bronx|harlem|philly';
/** `REGIONS` as a Set. */
export const regions = lazySet(REGIONS);
