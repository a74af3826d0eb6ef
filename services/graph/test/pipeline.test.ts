import { canonicalUrl, sameSite } from '../src/crawl/url';
import { createLocalExtractor, MAX_ENTITY_CHARS, MAX_LOCAL_ENTITIES } from '../src/pipeline/entities';
import { extractContent } from '../src/pipeline/main-text';

describe('URLs', () => {
  it('canonical form: no fragment, no tracking parameters, sorted query, http(s) only', () => {
    expect(canonicalUrl('HTTP://Example.COM/a?b=2&a=1&utm_source=x#top')).toBe('http://example.com/a?a=1&b=2');
    expect(canonicalUrl('../c', 'https://example.com/a/b')).toBe('https://example.com/c');
    expect(canonicalUrl('mailto:a@example.com')).toBeNull();
    expect(canonicalUrl('javascript:alert(1)')).toBeNull();
  });

  it('same site: host with or without www., http or https, same port', () => {
    expect(sameSite('https://www.example.com/x', 'http://example.com/')).toBe(true);
    expect(sameSite('http://example.com:8080/', 'http://example.com/')).toBe(false);
    expect(sameSite('http://other.com/', 'http://example.com/')).toBe(false);
    expect(sameSite('http://sub.example.com/', 'http://example.com/')).toBe(false);
  });
});

describe('main content', () => {
  it('keeps the main text and links; drops scripts, styles, navigation, header and footer', () => {
    const c = extractContent(
      '<html><head><title> T </title><style>.a{}</style><link rel="canonical" href="/x"></head><body><header>Top bar</header><nav>Menu</nav>' +
        '<main><h1>Title</h1><p>Body <b>text</b>.</p><a href="/next">next</a><script>evil()</script></main><footer>Foot</footer></body></html>',
    );
    expect(c).toEqual({ title: 'T', text: 'Title\nBody text.\nnext', links: ['/next'], canonical: '/x' });
  });
});

describe('local entity extraction', () => {
  it('finds people, places and organisations, and relates them by the verb between them', async () => {
    const r = await createLocalExtractor().extract(
      'Ada Lovelace founded Zylotech in Paris. Zylotech hired Charles Babbage.',
    );
    expect(r.entities.map((e) => [e.name, e.type])).toEqual(
      expect.arrayContaining([
        ['Ada Lovelace', 'PERSON'],
        ['Paris', 'PLACE'],
        ['Zylotech', 'THING'],
        ['Charles Babbage', 'PERSON'],
      ]),
    );
    expect(r.relations).toEqual(
      expect.arrayContaining([
        { source: 'ada lovelace', target: 'zylotech', type: 'FOUNDED' },
        { source: 'zylotech', target: 'paris', type: 'MENTIONED_WITH' },
        { source: 'zylotech', target: 'charles babbage', type: 'HIRED' },
      ]),
    );
  });

  const extract = (text: string) => createLocalExtractor().extract(text);
  const typed = async (text: string) => (await extract(text)).entities.map((e) => [e.name, e.type]);

  it('a capitalised common word starting a sentence is not an entity, the name after it is', async () => {
    const r = await extract('The report was long. However, Grace Hopper wrote it. Yesterday Alan Turing left.');
    expect(r.entities.map((e) => e.name).sort()).toEqual(['Alan Turing', 'Grace Hopper']);
    expect(await typed('Will Smith visited Oslo.')).toEqual([
      ['Will Smith', 'PERSON'],
      ['Oslo', 'PLACE'],
    ]);
  });

  it('organisations by their last word, "X of Y" and acronyms; people by titles; places by the lists', async () => {
    expect(
      await typed('Acme Corp hired Dr. Jane Okafor. The Bank of England lent to NASA and the University of Oslo.'),
    ).toEqual([
      ['Acme Corp', 'ORGANIZATION'],
      ['Dr. Jane Okafor', 'PERSON'],
      ['Bank of England', 'ORGANIZATION'],
      ['NASA', 'ORGANIZATION'],
      ['University of Oslo', 'ORGANIZATION'],
    ]);
    expect(await typed('Flights from Lisbon reach Japan, the UK and New York.')).toEqual([
      ['Lisbon', 'PLACE'],
      ['Japan', 'PLACE'],
      ['UK', 'PLACE'],
      ['New York', 'PLACE'],
    ]);
  });

  it('names of other languages, with connectors, possessives and digits', async () => {
    const r = await extract("José García trabajó en Madrid con Hans van der Berg. Björn Müller's firm Company12 grew.");
    expect(r.entities.map((e) => [e.name, e.type])).toEqual([
      ['José García', 'PERSON'],
      ['Madrid', 'PLACE'],
      ['Hans van der Berg', 'PERSON'],
      ['Björn Müller', 'PERSON'],
      ['Company12', 'THING'],
    ]);
    expect(r.relations).toEqual([
      { source: 'josé garcía', target: 'madrid', type: 'MENTIONED_WITH' },
      { source: 'madrid', target: 'hans van der berg', type: 'MENTIONED_WITH' },
      { source: 'björn müller', target: 'company12', type: 'MENTIONED_WITH' },
    ]);
  });

  it('relates by -ed, -s and irregular verbs (an auxiliary with its verb), not by articles and prepositions', async () => {
    const r = await extract(
      'Grace Hopper leads Zylotech. Zylotech is in Oslo. Oslo near Vienna. Vienna built Zylotech. ' +
        'Zylotech is located in Paris, which has been acquired by Acme Corp.',
    );
    expect(r.relations).toEqual([
      { source: 'grace hopper', target: 'zylotech', type: 'LEADS' },
      { source: 'zylotech', target: 'oslo', type: 'IS' },
      { source: 'oslo', target: 'vienna', type: 'MENTIONED_WITH' },
      { source: 'vienna', target: 'zylotech', type: 'BUILT' },
      { source: 'zylotech', target: 'paris', type: 'IS_LOCATED' },
      { source: 'paris', target: 'acme corp', type: 'HAS_BEEN_ACQUIRED' },
    ]);
  });

  it('a name first seen inside a sentence is also counted where it starts one', async () => {
    const r = await extract('Investors met Zylotech in March. Zylotech hired Ada Lovelace.');
    expect(r.entities.map((e) => e.name)).toEqual(['Zylotech', 'Ada Lovelace']);
    expect(r.relations).toEqual([{ source: 'zylotech', target: 'ada lovelace', type: 'HIRED' }]);
  });

  it('lower-case text, days, months and "I" give no entities', async () => {
    expect(await extract('the quick brown fox jumps over the lazy dog. nothing here is named, i think.')).toEqual({
      entities: [],
      relations: [],
    });
    expect((await extract('On Monday I left. In March we rested.')).entities).toEqual([]);
  });

  it('very long text gives a bounded answer: at most MAX_LOCAL_ENTITIES names, none longer than MAX_ENTITY_CHARS', async () => {
    const text = Array.from({ length: 5_000 }, (_, i) => `Entity${i} founded Firm${i} Inc in Paris.`).join(' ');
    const r = await extract(text);
    expect(r.entities.length).toBe(MAX_LOCAL_ENTITIES);
    expect(r.entities.every((e) => e.name.length <= MAX_ENTITY_CHARS)).toBe(true);
    expect(r.relations.length).toBeGreaterThan(0);
  });

  it('100 KB of capitals (one word, many words, dotted) ends with no name longer than MAX_ENTITY_CHARS', async () => {
    for (const text of ['A'.repeat(100_000), 'AB '.repeat(33_000), 'A.'.repeat(50_000), 'Ab-'.repeat(33_000)]) {
      const r = await extract(text);
      expect(r.entities.every((e) => e.name.length <= MAX_ENTITY_CHARS)).toBe(true);
    }
    // A run of more than eight capitalised words is a heading, not a name.
    expect((await extract('Big Long Heading With Many Words In Title Case Here')).entities).toEqual([]);
  });
});
