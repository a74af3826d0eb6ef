import { canonicalUrl, sameSite } from '../src/crawl/url';
import { createLocalExtractor } from '../src/pipeline/entities';
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
});
