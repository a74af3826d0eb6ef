import { randomBytes } from 'node:crypto';

import { createSecretBox, MASK, maskValues, openValues, parseKey, sealValues } from '@platform/secrets';

const key = randomBytes(32);
const box = createSecretBox(key);

/** Flips one bit of the base64 field at `index` (1 = iv, 2 = tag, 3 = ciphertext) of a sealed value. */
function tamper(sealed: string, index: number, byte = 0): string {
  const parts = sealed.split(':');
  const buf = Buffer.from(parts[index]!, 'base64');
  buf[byte] = buf[byte]! ^ 0x01;
  parts[index] = buf.toString('base64');
  return parts.join(':');
}

describe('createSecretBox', () => {
  test.each([
    ['ascii', 'sk-proj-abc123'],
    ['empty', ''],
    ['unicode', 'päss✓wörd — 密码 🔑'],
    ['long', 'x'.repeat(100_000)],
    ['colons', 'a:b:c:d'],
  ])('round trip (%s)', (_name, plaintext) => {
    const sealed = box.encrypt(plaintext);
    expect(box.decrypt(sealed)).toBe(plaintext);
  });

  test('the sealed form is v1:<iv>:<tag>:<ciphertext> and does not contain the plaintext', () => {
    const plaintext = 'super-secret-header-value';
    const sealed = box.encrypt(plaintext);
    const parts = sealed.split(':');
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('v1');
    expect(Buffer.from(parts[1]!, 'base64')).toHaveLength(12);
    expect(Buffer.from(parts[2]!, 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[3]!, 'base64')).toHaveLength(Buffer.byteLength(plaintext));
    expect(sealed).not.toContain(plaintext);
    expect(Buffer.from(parts[3]!, 'base64').toString('utf8')).not.toBe(plaintext);
  });

  test('two encryptions of the same text differ (fresh IV), and both decrypt', () => {
    const a = box.encrypt('same text');
    const b = box.encrypt('same text');
    expect(a).not.toBe(b);
    expect(a.split(':')[1]).not.toBe(b.split(':')[1]);
    expect(box.decrypt(a)).toBe('same text');
    expect(box.decrypt(b)).toBe('same text');
    const many = new Set(Array.from({ length: 200 }, () => box.encrypt('x').split(':')[1]));
    expect(many.size).toBe(200);
  });

  test('a value opened before opens the same again; a tampered copy of it still fails; any bound keeps answers right', () => {
    const sealed = box.encrypt('opened often');
    expect([box.decrypt(sealed), box.decrypt(sealed)]).toEqual(['opened often', 'opened often']);
    for (const i of [1, 2, 3]) expect(() => box.decrypt(tamper(sealed, i))).toThrow();
    for (const remember of [0, 1, 2]) {
      const small = createSecretBox(key, remember);
      const values = ['a', 'b', 'c'].map((v) => [v, small.encrypt(v)] as const);
      for (let round = 0; round < 3; round++)
        for (const [plain, sealedValue] of values) expect(small.decrypt(sealedValue)).toBe(plain);
    }
  });

  test('a tampered ciphertext fails to decrypt', () => {
    const sealed = box.encrypt('do not touch');
    expect(() => box.decrypt(tamper(sealed, 3, 0))).toThrow();
    expect(() => box.decrypt(tamper(sealed, 3, 5))).toThrow();
  });

  test('a tampered tag fails to decrypt', () => {
    const sealed = box.encrypt('do not touch');
    expect(() => box.decrypt(tamper(sealed, 2, 0))).toThrow();
    expect(() => box.decrypt(tamper(sealed, 2, 15))).toThrow();
  });

  test('a tampered IV fails to decrypt', () => {
    const sealed = box.encrypt('do not touch');
    expect(() => box.decrypt(tamper(sealed, 1, 3))).toThrow();
  });

  test('a truncated tag fails to decrypt', () => {
    const sealed = box.encrypt('do not touch');
    const parts = sealed.split(':');
    parts[2] = Buffer.from(parts[2]!, 'base64').subarray(0, 4).toString('base64');
    expect(() => box.decrypt(parts.join(':'))).toThrow();
  });

  test('a ciphertext swapped in from another message fails to decrypt', () => {
    const a = box.encrypt('message one!').split(':');
    const b = box.encrypt('message two!').split(':');
    expect(() => box.decrypt([a[0], a[1], a[2], b[3]].join(':'))).toThrow();
  });

  test('the wrong key fails to decrypt', () => {
    const sealed = box.encrypt('for key one only');
    const other = createSecretBox(randomBytes(32));
    expect(() => other.decrypt(sealed)).toThrow();
  });

  test('values that are not sealed secrets are rejected', () => {
    for (const bad of ['', 'plain text', 'v2:AAAA:BBBB:CCCC', 'v1:AAAA', 'v1::tag:data', 'v1:iv::data', MASK]) {
      expect(() => box.decrypt(bad)).toThrow();
    }
    expect(() => box.decrypt('v2:AAAA:BBBB:CCCC')).toThrow('not a sealed secret');
  });

  test('a key that is not 32 bytes is refused', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32-byte/);
    expect(() => createSecretBox(randomBytes(33))).toThrow(/32-byte/);
    expect(() => createSecretBox(Buffer.alloc(0))).toThrow(/32-byte/);
  });
});

describe('parseKey', () => {
  test('accepts 64 hex characters (either case)', () => {
    const raw = randomBytes(32);
    expect(parseKey(raw.toString('hex')).equals(raw)).toBe(true);
    expect(parseKey(raw.toString('hex').toUpperCase()).equals(raw)).toBe(true);
  });

  test('accepts base64 of 32 bytes (padded, unpadded and url-safe)', () => {
    const raw = randomBytes(32);
    expect(parseKey(raw.toString('base64')).equals(raw)).toBe(true);
    expect(parseKey(raw.toString('base64').replace(/=+$/, '')).equals(raw)).toBe(true);
    expect(parseKey(raw.toString('base64url')).equals(raw)).toBe(true);
  });

  test('a parsed key works with createSecretBox', () => {
    const hex = randomBytes(32).toString('hex');
    const a = createSecretBox(parseKey(hex));
    const b = createSecretBox(parseKey(Buffer.from(hex, 'hex').toString('base64')));
    expect(b.decrypt(a.encrypt('shared'))).toBe('shared');
  });

  test.each([
    ['empty', ''],
    ['short hex (62 chars)', 'ab'.repeat(31)],
    ['long hex (66 chars)', 'ab'.repeat(33)],
    ['hex of 16 bytes', randomBytes(16).toString('hex')],
    ['base64 of 16 bytes', randomBytes(16).toString('base64')],
    ['base64 of 31 bytes', randomBytes(31).toString('base64')],
    ['base64 of 33 bytes', randomBytes(33).toString('base64')],
    ['base64 of 64 bytes', randomBytes(64).toString('base64')],
    ['a passphrase', 'correct horse battery staple'],
  ])('rejects %s', (_name, raw) => {
    expect(() => parseKey(raw)).toThrow('encryption key must be 32 bytes, as 64 hex characters or base64');
  });
});

describe('records of secret values (header values)', () => {
  test('sealed one by one, opened back, read as masks', () => {
    const sealed = sealValues(box, { Authorization: 'Bearer a', 'X-Key': 'k' });
    expect(Object.keys(sealed)).toEqual(['Authorization', 'X-Key']);
    expect(sealed.Authorization).not.toContain('Bearer');
    expect(openValues(box, sealed)).toEqual({ Authorization: 'Bearer a', 'X-Key': 'k' });
    expect(maskValues(sealed)).toEqual({ Authorization: MASK, 'X-Key': MASK });
  });

  test('a masked value keeps what is stored under its name; a new or changed one is sealed anew', () => {
    const stored = sealValues(box, { A: 'old a', B: 'old b' });
    const next = sealValues(box, { A: MASK, B: 'new b', C: MASK }, stored);
    expect(next.A).toBe(stored.A);
    expect(openValues(box, next)).toEqual({ A: 'old a', B: 'new b', C: MASK });
  });
});
