import { allPii, startRaiApp, type RaiTestApp } from './helpers';

let t: RaiTestApp;
let key: string;
let redactAll: string;

beforeAll(async () => {
  t = await startRaiApp();
  key = await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' });
  redactAll = await t.policy(key, { pii_detection: { enabled: true, types: allPii('redact') } });
});
afterAll(() => t.close());

const redacted = async (text: string) => (await t.check(key, redactAll, text)).body.text as string;

describe('PII by type (redact)', () => {
  it.each([
    ['CREDIT_CARD', 'Card 4111 1111 1111 1111 on file', 'Card <CREDIT_CARD> on file'],
    ['CREDIT_CARD', 'Card 5500-0000-0000-0004 on file', 'Card <CREDIT_CARD> on file'],
    ['EMAIL_ADDRESS', 'Mail jane.doe+tag@example.co.uk today', 'Mail <EMAIL_ADDRESS> <DATE_TIME>'],
    ['PHONE_NUMBER', 'Call (415) 555-2671 or +44 20 7946 0958', 'Call <PHONE_NUMBER> or <PHONE_NUMBER>'],
    [
      'IP_ADDRESS',
      'Hosts 192.168.10.20 and 2001:db8:85a3::8a2e:370:7334 and fe80::1.',
      'Hosts <IP_ADDRESS> and <IP_ADDRESS> and <IP_ADDRESS>.',
    ],
    ['US_SSN', 'SSN 536-22-1234 here', 'SSN <US_SSN> here'],
    ['URL', 'See https://example.com/a?b=c, or www.example.org.', 'See <URL>, or <URL>.'],
    ['DATE_TIME', 'Meet on 2024-03-05 at 10:30', 'Meet on <DATE_TIME>'],
    ['PERSON', 'I spoke with John Smith and Dr. Alice Brown', 'I spoke with <PERSON> and <PERSON>'],
    ['LOCATION', 'She moved from Paris to New York', 'She moved from <LOCATION> to <LOCATION>'],
  ])('%s: %s', async (_type, text, expected) => {
    expect(await redacted(text)).toBe(expected);
  });

  it('leaves hard negatives alone: a Luhn-invalid card, impossible SSNs, versions, times, C++ scopes, out-of-range octets', async () => {
    for (const text of [
      'Card 4111 1111 1111 1112 on file',
      'SSN 000-12-3456 and 666-12-3456 and 900-12-3456 and 123-00-4567',
      'Version 1.2.3 and v10.0.0.1 shipped',
      'std::vector and a::b::c in code',
      'Address 256.1.1.1 is not valid',
      'The order id is 1234567',
    ]) {
      const res = await t.check(key, redactAll, text);
      expect({ text, action: res.body.action }).toEqual({ text, action: 'allow' });
    }
  });

  it('reports each type found once with its count', async () => {
    const res = await t.check(key, redactAll, 'a@b.io, c@d.io and 10.0.0.1');
    expect(res.body.violations).toEqual([
      { check: 'pii', detail: 'EMAIL_ADDRESS found (2)' },
      { check: 'pii', detail: 'IP_ADDRESS found (1)' },
    ]);
  });
});

describe('PII actions', () => {
  it('blocks on a type set to block, redacts others, and ignores disabled ones', async () => {
    const id = await t.policy(key, {
      pii_detection: { enabled: true, types: { US_SSN: 'block', EMAIL_ADDRESS: 'redact', URL: 'disabled' } },
    });
    const blocked = await t.check(key, id, 'SSN 536-22-1234, mail a@b.io');
    expect(blocked.body).toMatchObject({ allowed: false, action: 'block', text: 'SSN <US_SSN>, mail <EMAIL_ADDRESS>' });
    const redactedOnly = await t.check(key, id, 'mail a@b.io at https://x.io');
    expect(redactedOnly.body).toEqual({
      allowed: true,
      action: 'redact',
      text: 'mail <EMAIL_ADDRESS> at https://x.io',
      violations: [{ check: 'pii', detail: 'EMAIL_ADDRESS found (1)' }],
    });
  });

  it('does nothing while pii_detection is disabled', async () => {
    const id = await t.policy(key, { pii_detection: { enabled: false, types: allPii('block') } });
    expect((await t.check(key, id, 'a@b.io')).body.action).toBe('allow');
  });
});

describe('custom PII', () => {
  it('redacts strings and applies object entries with their replacement and action', async () => {
    const id = await t.policy(key, {
      pii_detection: {
        enabled: true,
        custom_pii: [
          'EMP-4471',
          { label: 'Blue Harbor', replacement: '<SITE>', action: 'redact' },
          { label: 'Orion', action: 'block' },
        ],
      },
    });
    const res = await t.check(key, id, 'Employee emp-4471 works at blue   harbor.');
    expect(res.body).toEqual({
      allowed: true,
      action: 'redact',
      text: 'Employee [REDACTED] works at <SITE>.',
      violations: [
        { check: 'custom_pii', detail: 'custom PII "EMP-4471" found' },
        { check: 'custom_pii', detail: 'custom PII "Blue Harbor" found' },
      ],
    });
    expect((await t.check(key, id, 'Project ORION starts')).body.action).toBe('block');
    expect((await t.check(key, id, 'Orionids meteor shower')).body.action).toBe('allow');
  });
});
