import {
  COMMON_WORDS,
  commonWords,
  firstNames,
  lastNames,
  majorPlaces,
  places,
  regions,
  vectorPersons,
  vectorPlaces,
} from '@platform/gazetteer';

describe('gazetteer', () => {
  it('lists names, places and common words, lower case', () => {
    expect(firstNames().has('ada')).toBe(true);
    expect(lastNames().has('smith')).toBe(true);
    expect(places().has('paris')).toBe(true);
    expect(places().has('japan')).toBe(true);
    expect(majorPlaces().has('london')).toBe(true);
    expect(majorPlaces().has('aalen')).toBe(false);
    expect(regions().has('new york')).toBe(true);
    expect(commonWords().has('the')).toBe(true);
    expect(commonWords().has('Paris')).toBe(false);
    expect(commonWords().size).toBe(COMMON_WORDS.split('|').length);
  });

  it('holds places in their plain spellings too, not when that is an English word', () => {
    expect(places().has('tikrīt')).toBe(true);
    expect(places().has('tikrit')).toBe(true);
    expect(places().has('raqqah')).toBe(true); // "Ar Raqqah" without its article
    expect(places().has('come')).toBe(false); // "Comé" (Benin)
  });

  it('lists words on no other list that word vectors place among people and places, read on first use', () => {
    expect(vectorPersons().has('trudeau')).toBe(true);
    expect(vectorPlaces().has('raqqa')).toBe(true);
    for (const list of [vectorPersons(), vectorPlaces()]) {
      expect(list.has('the')).toBe(false);
      expect(list.has('paris')).toBe(false);
      expect(list.has('smith')).toBe(false);
    }
    expect(vectorPersons()).toBe(vectorPersons());
  });

  it('builds each set once', () => {
    expect(firstNames()).toBe(firstNames());
  });
});
