import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Encrypts and decrypts small secrets at rest with AES-256-GCM. */
export interface SecretBox {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

const VERSION = 'v1';

/**
 * Parses a 32-byte key given as 64 hex characters or base64. Throws a message fit for config errors.
 */
export function parseKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes, as 64 hex characters or base64');
  return key;
}

/** Sealed values a box remembers having opened (the secrets of the webhooks, credentials and schedules in use). */
export const REMEMBERED_OPENINGS = 1_000;

/**
 * A SecretBox over one key. Output: `v1:<iv b64>:<tag b64>:<ciphertext b64>`. A sealed value carries its own IV and
 * tag, so it always opens to the same text: the box remembers the last `REMEMBERED_OPENINGS` it opened (a trigger
 * opens its webhook's secret, a run its credential, every time), as plaintext in this process's memory, where the
 * callers hold it anyway while they use it.
 */
export function createSecretBox(key: Buffer, remember = REMEMBERED_OPENINGS): SecretBox {
  if (key.length !== 32) throw new Error('AES-256-GCM needs a 32-byte key');
  const opened = new Map<string, string>();
  const open = (sealed: string) => {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  };
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(
        ':',
      );
    },
    decrypt(sealed) {
      let plain = opened.get(sealed);
      if (plain === undefined) {
        plain = open(sealed); // a value that does not open throws, and is not remembered
        if (remember <= 0) return plain;
        if (opened.size >= remember) opened.delete(opened.keys().next().value!);
        opened.set(sealed, plain);
      }
      return plain;
    },
  };
}

/** The value shown in place of a secret on read. */
export const MASK = '***';

/** Opens every value of a record of sealed values (header values of HTTP schedules and tools). */
export function openValues(box: SecretBox, sealed: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(sealed).map(([k, v]) => [k, box.decrypt(v)]));
}

/**
 * Seals every value of `values`. A value sent as `MASK` keeps the sealed value `previous` holds under the same name,
 * so a client can send back what it read; a masked name with nothing stored is sealed as it is.
 */
export function sealValues(
  box: SecretBox,
  values: Record<string, string>,
  previous: Record<string, string> = {},
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, (v === MASK ? previous[k] : undefined) ?? box.encrypt(v)]),
  );
}

/** What a record of secret values reads as: its names, each value masked. */
export function maskValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, MASK]));
}
