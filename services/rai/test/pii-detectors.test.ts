import { conllSentences, formatNumber, parsePhoneMetadata, properNames } from '../bench/datasets/pii';
import { containsWord } from '../bench/datasets/score';
import { PII_TYPES } from '../src/checks/pii-patterns';
import { piiFindings } from '../src/checks/pii.check';
import { taggedSpans } from '../src/checks/pii/ner-tagger';
import { NER_WEIGHTS } from '../src/checks/pii/ner-weights';

const all = Object.fromEntries(PII_TYPES.map((t) => [t, 'redact' as const]));

/** The text with every finding's spans replaced, as the inference route does. */
function redact(text: string): string {
  const spans = piiFindings(text, all)
    .flatMap((f) => f.spans ?? [])
    .sort((a, b) => a.start - b.start);
  let out = '';
  let pos = 0;
  for (const s of spans) {
    if (s.start < pos) continue;
    out += text.slice(pos, s.start) + s.replacement;
    pos = s.end;
  }
  return out + text.slice(pos);
}

describe('phone numbers in international and national forms', () => {
  it.each([
    ['Call +44 20 7946 0958 today', 'Call <PHONE_NUMBER> <DATE_TIME>'],
    ['Ring 0044 20 7946 0958 please', 'Ring <PHONE_NUMBER> please'],
    ['Office (020) 7946 0958, ask for details', 'Office <PHONE_NUMBER>, ask for details'],
    ['Berlin office +49 (0)30 123456', '<LOCATION> office <PHONE_NUMBER>'],
    ['my mobile is 07700 900123', 'my mobile is <PHONE_NUMBER>'],
    ['tel. 06.12.34.56.78', 'tel. <PHONE_NUMBER>'],
    ['Call (415) 555-2671 please', 'Call <PHONE_NUMBER> please'],
    ['Bombay desk +91 98765 43210', '<LOCATION> desk <PHONE_NUMBER>'],
  ])('%s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    'Order 1234567 shipped',
    'Version 1.2.3.4 is out',
    'It costs $1,234,567',
    'Released on 2024-03-05',
    'Due 12/03/2024',
    'Host 10.0.0.1 answers',
  ])('leaves %s without a phone number', (text) => {
    expect(piiFindings(text, { PHONE_NUMBER: 'redact' })).toEqual([]);
  });
});

describe('people and places from gazetteers and context', () => {
  it.each([
    ['I met Scooter Braun yesterday', 'Scooter Braun'],
    ['Senator Murkowski spoke', 'Murkowski'],
    ['my name is kenny and I like tea', 'kenny'],
    ['Dear Priya, thanks for the note', 'Priya'],
    ['Hiroshi Tanaka joined the team', 'Hiroshi Tanaka'],
  ])('PERSON in %s', (text, name) => {
    const out = redact(text);
    expect(out).toContain('<PERSON>');
    expect(out).not.toContain(name);
  });

  it.each([
    ['We flew from Lagos to Nairobi', ['Lagos', 'Nairobi']],
    ['Snow again in Ottawa tonight', ['Ottawa']],
    ['Meet me at Central Park', ['Central Park']],
    ['She lives on Baker Street', ['Baker Street']],
    ['moving to japan next year', ['japan']],
    ['Dayton, NJ is quiet', ['Dayton', 'NJ']],
    ['Back in the UK now', ['UK']],
  ])('LOCATION in %s', (text, places) => {
    const out = redact(text);
    expect(out).toContain('<LOCATION>');
    for (const p of places) expect(out).not.toContain(p);
  });

  it.each([
    [
      'The SDF have regained about 300 square miles , Davis said .',
      'The SDF have regained about 300 square miles , <PERSON> said .',
    ],
    ['They have equipment , " said Volesky .', 'They have equipment , " said <PERSON> .'],
    ['The plan works , according to Abadi .', 'The plan works , according to <PERSON> .'],
    ['the Police said no', 'the Police said no'],
    ['Officials said it was fine .', 'Officials said it was fine .'],
  ])('reads a speaker of reported speech: %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    ['bombings in Istanbul , Turkey .', 'bombings in <LOCATION> , <LOCATION> .'],
    ['He flew to Amman , Jordan', 'He flew to <LOCATION> , <LOCATION>'],
    ['key towns including Rabiyah and Zumar , broken', 'key towns including <LOCATION> and <LOCATION> , broken'],
    ['attacks on Aleppo and Daraya', 'attacks on <LOCATION> and <LOCATION>'],
    ['attacks in the towns of Jabla again', 'attacks in the towns of <LOCATION> again'],
    ['within 7 kilometers of Tabqa Dam', 'within 7 kilometers of <LOCATION>'],
    ['the liberation of Tikrit', 'the liberation of <LOCATION>'],
  ])('reads places from lists, kinds of place and their plain spellings: %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('reads capitalised words that word vectors place among names, not other capitalised words', () => {
    expect(redact('Then Trudeau spoke')).toBe('Then <PERSON> spoke');
    expect(redact('They fought for Raqqa')).toBe('They fought for <LOCATION>');
    expect(redact('MetroPCS has the worst service')).toBe('MetroPCS has the worst service');
  });

  it('reads a first name that is also a place as a person when a surname follows, as a place after "in"', () => {
    expect(redact('Lindsay Lohan failed the test')).toBe('<PERSON> failed the test');
    expect(redact('We stayed in Florence')).toBe('We stayed in <LOCATION>');
  });

  it.each([
    'I will go there and hope for the best',
    'Will you hope for a summer visit?',
    'Follow @johan0394 and #MelbourneTomorrow',
    'we are all in this together',
    'Let us know if you can make it',
  ])('finds no person or place in %s', (text) => {
    expect(piiFindings(text, { PERSON: 'redact', LOCATION: 'redact' })).toEqual([]);
  });
});

describe('the trained token tagger', () => {
  const spanTexts = (weights: Map<string, number[]>, text: string) =>
    taggedSpans(weights, text).map((s) => `${s.type}:${text.slice(s.start, s.end)}`);

  it('scores features per label and merges adjacent tokens of one label into a span', () => {
    const weights = new Map([
      ['b', [1, 0, 0]],
      ['s=title', [0, 3, 0]],
      ['pw=in', [0, -3, 4]],
    ]);
    expect(spanTexts(weights, 'we met John Smith in Paris today')).toEqual(['PERSON:John Smith', 'LOCATION:Paris']);
  });

  it('ships weights that tag people and places in running text', () => {
    const weights = new Map(NER_WEIGHTS);
    expect(weights.size).toBeGreaterThan(1000);
    expect(spanTexts(weights, 'shoutout to Tamsin Okonkwo for the help')).toEqual(['PERSON:Tamsin Okonkwo']);
    expect(spanTexts(weights, 'flying into Ouagadougou tomorrow')).toEqual(['LOCATION:Ouagadougou']);
    expect(spanTexts(weights, 'this is fine and i like it')).toEqual([]);
  });
});

describe('dates and times', () => {
  it.each([
    ['Born 17.5.2020 in the night', '17.5.2020'],
    ['I ran this morning', 'this morning'],
    ['We moved there in 2019', '2019'],
    ['Big hair was in in the 1980s', '1980s'],
    ['Meet next Friday at 3pm', 'next Friday at 3pm'],
    ['Due March 5, 2023', 'March 5, 2023'],
  ])('%s', (text, date) => {
    const out = redact(text);
    expect(out).toContain('<DATE_TIME>');
    expect(out).not.toContain(date);
  });

  it('leaves versions, prices and bare numbers alone', () => {
    for (const text of ['Upgrade to v2.1.15 now', 'It costs 2019 dollars', 'Route 66 is long'])
      expect(piiFindings(text, { DATE_TIME: 'redact' })).toEqual([]);
  });
});

describe('the PII evaluation set builder', () => {
  it('reads CoNLL entities, mapping PER/LOC and dropping @handles and other types', () => {
    const raw = [
      'Met\tO',
      'Jane\tB-person',
      'Doe\tI-person',
      'in\tO',
      'Paris\tB-location',
      '@\tO',
      'bob\tB-PER',
      'at\tO',
      'Acme\tB-corporation',
      '',
      'Hi\tO',
      '',
    ].join('\n');
    expect(conllSentences(raw)).toEqual([
      {
        text: 'Met Jane Doe in Paris @ bob at Acme',
        entities: [
          { type: 'PERSON', text: 'Jane Doe' },
          { type: 'LOCATION', text: 'Paris' },
        ],
      },
      { text: 'Hi', entities: [] },
    ]);
  });

  it('reads space-separated CoNLL with IO tags and drops document markers (wikigold)', () => {
    const raw = ['-DOCSTART- O', '', 'Ann I-PER', 'Lee I-PER', 'left O', 'Oslo I-LOC', 'Inc I-ORG', ''].join('\n');
    expect(conllSentences(raw, ' ')).toEqual([
      {
        text: 'Ann Lee left Oslo Inc',
        entities: [
          { type: 'PERSON', text: 'Ann Lee' },
          { type: 'LOCATION', text: 'Oslo' },
        ],
      },
    ]);
  });

  it('keeps the names of re3d mentions: capitalised runs, no pronouns, no leading "The"', () => {
    const raw = [
      'The\tB-Person',
      'Minister\tI-Person',
      'met\tO',
      'he\tB-Person',
      'in\tO',
      'the\tB-Location',
      'port\tI-Location',
      'city\tI-Location',
      'of\tI-Location',
      'Tartus\tI-Location',
      'with\tO',
      'Tobias\tB-Person',
      'Ellwood\tI-Person',
      '',
    ].join('\n');
    expect(conllSentences(raw).map(properNames)).toEqual([
      {
        text: 'The Minister met he in the port city of Tartus with Tobias Ellwood',
        entities: [
          { type: 'PERSON', text: 'Minister' },
          { type: 'LOCATION', text: 'Tartus' },
          { type: 'PERSON', text: 'Tobias Ellwood' },
        ],
      },
    ]);
  });

  it('counts an entity as removed when it is no longer there as a whole word', () => {
    expect(containsWord('civil war in <LOCATION> and Syrian parties', 'Syria')).toBe(false);
    expect(containsWord('civil war in Syria.', 'Syria')).toBe(true);
    expect(containsWord('call (555) 010', '(555) 010')).toBe(true);
  });

  it('formats example numbers with the metadata rules, national prefix included', () => {
    const xml = `<territories><territory id="GB" countryCode="44" nationalPrefix="0" nationalPrefixFormattingRule="$NP$FG">
      <availableFormats><numberFormat pattern="(\\d{2})(\\d{4})(\\d{4})"><leadingDigits>2</leadingDigits><format>$1 $2 $3</format></numberFormat></availableFormats>
      <fixedLine><exampleNumber>2079460958</exampleNumber></fixedLine></territory></territories>`;
    const [gb] = parsePhoneMetadata(xml);
    expect(gb).toMatchObject({ id: 'GB', cc: '44', np: '0', examples: ['2079460958'] });
    expect(formatNumber(gb!, '2079460958')).toEqual({ national: '020 7946 0958', intl: '+44 20 7946 0958' });
  });
});
