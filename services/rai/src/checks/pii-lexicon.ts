import nlp from 'compromise';

import {
  COMMON_WORDS,
  FIRST_NAMES,
  LAST_NAMES,
  MAJOR_PLACES,
  PLACES,
  regions,
  vectorPersons,
  vectorPlaces,
} from '@platform/gazetteer';

/**
 * The word lists and cue patterns of people and places that pii-entities.ts reads.
 *
 * Lists (`@platform/gazetteer`, generated from npm packages): ~22,600 first and ~17,750 last names of every faker
 * locale, ~23,000 cities of ≥ 15,000 people with every country, its native name and capital, and ~16,600 common
 * lower-case English words (SUBTLEX-US) that a lower-case token may be instead of a name; plus compromise's lexicon
 * (first names, cities, regions) and the states, provinces and abbreviations below.
 */
const lexicon = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;

const setOf = (s: string) => new Set(s.split('|'));
export const FIRST = setOf(FIRST_NAMES);
/** First names common in English text (compromise's lexicon): the only ones read in lower case ("mike", "sarah"). */
export const ENGLISH_FIRST = new Set<string>();
/** Well-known people of compromise's lexicon ("barack obama", "beyonce", "hitler"), one or more words. */
export const KNOWN_PERSON = new Set<string>();
export const LAST = setOf(LAST_NAMES);
export const COMMON = setOf(COMMON_WORDS);
/** Words on no list that word vectors place among names of people / places (see @platform/gazetteer). */
export const VECTOR_PERSON = vectorPersons();
export const VECTOR_PLACE = vectorPlaces();
export const PLACE = setOf(PLACES);
for (const [w, t] of Object.entries(lexicon)) {
  const tags = Array.isArray(t) ? t : [t];
  if (tags.some((x) => x === 'City' || x === 'Country' || x === 'Region')) PLACE.add(w);
  if (tags.some((x) => x === 'MaleName' || x === 'FemaleName' || x === 'FirstName')) {
    FIRST.add(w);
    ENGLISH_FIRST.add(w);
  }
  if (tags.includes('LastName')) LAST.add(w);
  if (tags.includes('Person')) KNOWN_PERSON.add(w);
}
/** Abbreviations read as places only in capitals ("LA", not "la"; "US", not "us"). */
export const ABBREVIATIONS = new Set('NYC LA SF DC UK US USA U.S. U.S.A. U.K. UAE NY NJ ATL NOLA'.split(' '));
for (const r of regions()) PLACE.add(r);
/** Places read in lower case too: countries and regions ("japan", "ireland"), and big cities. */
export const MAJOR_PLACE = new Set([...regions(), ...MAJOR_PLACES.split('|')]);
for (const [w, t] of Object.entries(lexicon))
  if ([t].flat().some((x) => x === 'Country' || x === 'Region')) MAJOR_PLACE.add(w);
/** Two-letter US state codes, read as places only in capitals after a place or a comma ("Dayton, NJ"). */
export const STATE_CODES = new Set(
  'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC'.split(
    ' ',
  ),
);
/** Words that are names in some list but mostly something else in English text. */
export const NOT_NAMES = new Set(
  'i|a|an|the|and|or|of|in|on|at|to|for|by|with|from|de|la|le|el|da|di|du|van|von|der|den|del|des|lol|omg|rt|ok|oh|yes|no|god|lord|jesus|christ|love|baby|happy|good|new|old|big|little|great|dear|sir|mr|mrs|ms|dr|st|mt|im|ill|ive|dont|cant|u|ur|ya|yo|haha|hey|hi|bye|thanks|thank|please|so|my|me|you|we|he|she|it|they|this|that|today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|date|christmas|easter|north|south|east|west|central|university|college|school|street|road|park|city|county|state|hotel|airport|station|media|video|music|online|live|news|twitter|facebook|youtube|google|apple|iphone|android|windows|microsoft|amazon|netflix'.split(
    '|',
  ),
);
export const HONORIFIC =
  /^(?:mr|mrs|ms|miss|mx|dr|prof|professor|sir|dame|lady|lord|pope|president|pres|senator|sen|rep|representative|gov|governor|mayor|coach|captain|capt|cpt|king|queen|prince|princess|saint|officer|judge|justice|rev|reverend|father|fr|sister|brother|uncle|aunt|auntie|grandma|grandpa|chancellor|minister|pm|general|gen|col|colonel|sgt|sergeant|lt|lieutenant|detective|agent|dj|mc|mister|madam|madame|señor|senor|herr|frau)$/i;
/** Words that make the capitalised words before them a place. */
export const PLACE_WORD =
  /^(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|way|place|square|sq|park|county|valley|lake|river|bay|beach|island|islands|mountain|mountains|mount|mt|pass|bridge|building|tower|center|centre|airport|station|stadium|arena|mall|plaza|hall|gardens|gdns|garden|castle|palace|cathedral|church|museum|zoo|harbour|harbor|port|falls|canyon|forest|desert|coast|heights|hills|village|town|city|district|province|state|republic|kingdom|field|stadium|cafe|café|bistro|inn|pub|bar|lounge|club|theatre|theater|observatory|glacier|school|academy|campus|hospital|venue|grounds|alley|world|bowl|hotel|motel|resort|market|terrace|highway|hwy|freeway|expressway|dam|gate|sea|gulf|ocean|strait|canal|peninsula|base|airfield|reservoir|neighborhood|neighbourhood|governorate|region|prefecture|township|borough)$/i;
export const LOCATIVE = /^(?:in|from|near|visiting|visit|to|at|around|across|outside|inside|via|towards|toward)$/i;
export const NAME_CUE =
  /(?:\bmy name is|\bname's|\bi am|\bi'm|\bdear|\bcalled|\bnamed|\bthanks|\bthank you|\bhi|\bhey|\bhello|\bcongrats|\bwith|\band|\bby|\bmeet|\bmet)\s+$/i;

/** Cues after which an unknown capitalised word is a name. */
export const NAME_CUE_STRICT =
  /(?:\bmy name is|\bname's|\bdear|\bcalled|\bnamed|\bthanks|\bthank you|\bhi|\bhey|\bhello|\bcongrats(?: to)?|\bhappy birthday|\bmiss you|\blove you|\bRIP)\s+$/i;
