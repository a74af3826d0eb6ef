/** PII examples: each type in several formats, and hard negatives that look like PII but are not. */
import { chars, int, pick, times, vary, type Example, type Rand } from './eval-kit';

const FIRST = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'Michael',
  'Jennifer',
  'William',
  'Linda',
  'David',
  'Susan',
  'Thomas',
  'Karen',
  'Daniel',
  'Nancy',
  'Emily',
  'Kevin',
];
const LAST = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Anderson',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Thompson',
  'White',
  'Harris',
];
const PLACES = [
  'Paris',
  'London',
  'Tokyo',
  'Berlin',
  'Madrid',
  'Chicago',
  'Boston',
  'Germany',
  'Brazil',
  'Canada',
  'New York',
  'California',
  'Texas',
  'Mexico',
  'Italy',
  'Sydney',
];
const DOMAINS = ['example.com', 'mail.example.org', 'corp.example.net', 'example.co.uk', 'uni.example.edu'];

function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

function card(r: Rand, valid: boolean): string {
  const prefix = pick(r, ['4', '51', '52', '55', '37']);
  const length = prefix === '37' ? 15 : 16;
  const body = prefix + chars(r, '0123456789', length - prefix.length - 1);
  const check = luhnDigit(body);
  const digits = body + (valid ? check : String((Number(check) + int(r, 1, 9)) % 10));
  const sep = pick(r, [' ', '-', '']);
  return length === 16
    ? digits.match(/.{4}/g)!.join(sep)
    : `${digits.slice(0, 4)}${sep}${digits.slice(4, 10)}${sep}${digits.slice(10)}`;
}

const email = (r: Rand) =>
  `${pick(r, FIRST).toLowerCase()}${pick(r, ['.', '_', '+news', ''])}${pick(r, LAST).toLowerCase()}@${pick(r, DOMAINS)}`;
const phone = (r: Rand) =>
  pick(r, [
    `(${pick(r, ['415', '212', '646', '312', '617'])}) ${int(r, 200, 999)}-${int(r, 1000, 9999)}`,
    `${pick(r, ['415', '212', '646', '312', '617'])}-${int(r, 200, 999)}-${int(r, 1000, 9999)}`,
    `+1 ${pick(r, ['415', '212', '646'])} ${int(r, 200, 999)} ${int(r, 1000, 9999)}`,
    `+44 20 7946 0${int(r, 100, 999)}`,
    `+49 30 ${int(r, 1000000, 9999999)}`,
  ]);
const ipv4 = (r: Rand) => `${int(r, 1, 223)}.${int(r, 0, 255)}.${int(r, 0, 255)}.${int(r, 1, 254)}`;
const ipv6 = (r: Rand) =>
  pick(r, [
    `2001:db8:${chars(r, '0123456789abcdef', 4)}::${chars(r, '0123456789abcdef', 3)}`,
    `fe80::${chars(r, '0123456789abcdef', 4)}:1`,
    `2001:0db8:85a3:0000:0000:8a2e:0370:${chars(r, '0123456789abcdef', 4)}`,
  ]);
const ssn = (r: Rand) =>
  `${pick(r, [int(r, 1, 665), int(r, 667, 899)])
    .toString()
    .padStart(3, '0')}-${int(r, 1, 99).toString().padStart(2, '0')}-${int(r, 1, 9999).toString().padStart(4, '0')}`;
const url = (r: Rand) =>
  pick(r, [
    `https://${pick(r, DOMAINS)}/docs/${chars(r, 'abcdefgh', 5)}`,
    `http://${pick(r, DOMAINS)}/?q=${chars(r, 'abc123', 6)}`,
    `www.${pick(r, DOMAINS)}`,
  ]);
const date = (r: Rand) =>
  pick(r, [
    `2024-${int(r, 10, 12)}-${int(r, 10, 28)}`,
    `March ${int(r, 1, 28)}, 2023`,
    `${int(r, 1, 12)}/${int(r, 10, 28)}/2022`,
    `next Friday at ${int(r, 1, 11)}pm`,
    `${int(r, 1, 11)}:${int(r, 10, 59)} am`,
  ]);
const person = (r: Rand) => `${pick(r, FIRST)} ${pick(r, LAST)}`;

const POSITIVE: [string, (r: Rand) => string, string[]][] = [
  ['CREDIT_CARD', (r) => `Please charge card ${card(r, true)} for the order.`, []],
  ['EMAIL_ADDRESS', (r) => `You can reach the team at ${email(r)} for help.`, []],
  ['PHONE_NUMBER', (r) => `Call the desk on ${phone(r)} if it breaks again.`, []],
  ['IP_ADDRESS', (r) => `The server answers on ${r() < 0.5 ? ipv4(r) : ipv6(r)} inside the network.`, []],
  ['US_SSN', (r) => `The form lists SSN ${ssn(r)} for the applicant.`, []],
  ['URL', (r) => `The guide is published at ${url(r)} for everyone.`, []],
  ['DATE_TIME', (r) => `The review is planned for ${date(r)} with the whole team.`, []],
  ['PERSON', (r) => `The report was written by ${person(r)} and checked twice.`, []],
  ['LOCATION', (r) => `Our next office opens in ${pick(r, PLACES)} with ten desks.`, []],
];

const NEGATIVE: [string, (r: Rand) => string][] = [
  ['luhn_invalid_card', (r) => `Please charge card ${card(r, false)} for the order.`],
  ['order_number', (r) => `Your order number is ${int(r, 100000, 999999)} and ships soon.`],
  ['version', (r) => `Upgrade the package to version ${int(r, 1, 9)}.${int(r, 0, 20)}.${int(r, 0, 30)} first.`],
  [
    'bad_octet',
    (r) => `The value ${int(r, 256, 999)}.${int(r, 0, 255)}.${int(r, 0, 255)}.${int(r, 0, 255)} is not an address.`,
  ],
  ['cpp_scope', (r) => `Use std::${pick(r, ['vector', 'map', 'string'])} and a::b in the code.`],
  [
    'bad_ssn',
    (r) => `The code ${pick(r, ['000', '666', '912'])}-${int(r, 10, 99)}-${int(r, 1000, 9999)} is a batch label.`,
  ],
  ['no_tld_email', (r) => `Ping me at ${pick(r, FIRST).toLowerCase()}@localhost or on the chat.`],
  [
    'plain',
    (r) =>
      pick(r, [
        'The build passed and the tests are green.',
        'Please summarise the attached report in three bullet points.',
        'How do I reset my password?',
        'The quarterly numbers look better than expected.',
      ]),
  ],
  ['count', (r) => `We shipped ${int(r, 2, 90)} features and fixed ${int(r, 2, 90)} bugs.`],
];

/** 9 types × 20 positives, and 9 families × 8 hard negatives + 18 more mixed positives = 270 examples. */
export function piiExamples(r: Rand): Example[] {
  const positives = POSITIVE.flatMap(([type, make]) =>
    times(20, () => ({ text: vary(r, make(r)), label: true, types: [type], source: `synthetic:pii:${type}` })),
  );
  const mixed = times(18, () => ({
    text: `Send ${email(r)} the invoice and call ${phone(r)}.`,
    label: true,
    types: ['EMAIL_ADDRESS', 'PHONE_NUMBER'],
    source: 'synthetic:pii:mixed',
  }));
  const negatives = NEGATIVE.flatMap(([name, make]) =>
    times(8, () => ({ text: vary(r, make(r)), label: false, types: [], source: `synthetic:pii:negative:${name}` })),
  );
  return [...positives, ...mixed, ...negatives];
}
