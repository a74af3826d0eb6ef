import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 40;
const KEY_FORMAT = /^sk_[0-9A-Za-z]{40}$/;
/** Characters of a key kept for display and for revoking by prefix. */
export const PREFIX_LENGTH = 12;

/** SHA-256 hex of a key: the only form in which keys are stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True when `key` has the shape of a key we issue (checked before any lookup). */
export function isWellFormedApiKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/** A new random key (`sk_` + 40 base62 chars, ~238 bits), its display prefix and its hash. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  let body = '';
  for (let i = 0; i < BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  const key = `sk_${body}`;
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashApiKey(key) };
}
