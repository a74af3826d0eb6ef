import { COMMON_WORDS, commonWords, firstNames, lastNames, majorPlaces, places, regions } from '@platform/gazetteer';

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

  it('builds each set once', () => {
    expect(firstNames()).toBe(firstNames());
  });
});
