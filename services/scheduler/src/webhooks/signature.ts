import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature headers a trigger may carry (names lower-cased, as node gives them). */
export interface SignatureHeaders {
  'x-webhook-signature'?: string;
  'webhook-id'?: string;
  'webhook-timestamp'?: string;
  'webhook-signature'?: string;
}

/** Standard Webhooks tolerance on `webhook-timestamp`, in seconds. */
export const TIMESTAMP_TOLERANCE_S = 300;

const SHA256_HEADER = /^sha256=([0-9a-fA-F]{64})$/;
const MAX_HEADER = 2048;

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `X-Webhook-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body keyed with the UTF-8 bytes of the secret. */
function verifySha256(header: string, body: Buffer, secrets: string[]): boolean {
  const m = header.length <= MAX_HEADER ? SHA256_HEADER.exec(header.trim()) : null;
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1], 'hex');
  return secrets.some((s) => equal(createHmac('sha256', Buffer.from(s, 'utf8')).update(body).digest(), given));
}

/** The Standard Webhooks key: the base64 bytes after `whsec_`, as the official libraries read it. */
function standardKey(secret: string): Buffer | null {
  if (!secret.startsWith('whsec_')) return null;
  const key = Buffer.from(secret.slice(6), 'base64');
  return key.length > 0 ? key : null;
}

/** Standard Webhooks: `v1,<base64>` entries (space-separated) over `id.timestamp.body`, timestamp within ±300 s. */
function verifyStandard(h: SignatureHeaders, body: Buffer, secrets: string[], now: Date): boolean {
  const id = h['webhook-id'];
  const ts = h['webhook-timestamp'];
  const sig = h['webhook-signature'];
  if (!id || !ts || !sig || id.length > 256 || sig.length > MAX_HEADER || !/^\d{1,12}$/.test(ts)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(ts)) > TIMESTAMP_TOLERANCE_S) return false;
  const given = sig
    .split(' ')
    .filter((p) => p.startsWith('v1,'))
    .map((p) => Buffer.from(p.slice(3), 'base64'));
  if (given.length === 0) return false;
  const signed = Buffer.concat([Buffer.from(`${id}.${ts}.`, 'utf8'), body]);
  return secrets.some((s) => {
    const key = standardKey(s);
    if (!key) return false;
    const expected = createHmac('sha256', key).update(signed).digest();
    return given.some((g) => equal(expected, g));
  });
}

/**
 * True when the raw body is signed with one of `secrets` (the current one, and the previous one during its grace)
 * by either scheme. Never throws on odd input; compares in constant time.
 */
export function verifySignature(headers: SignatureHeaders, body: Buffer, secrets: string[], now: Date): boolean {
  if (secrets.length === 0) return false;
  const sha = headers['x-webhook-signature'];
  if (sha !== undefined && verifySha256(sha, body, secrets)) return true;
  return headers['webhook-signature'] !== undefined && verifyStandard(headers, body, secrets, now);
}

/** Signs like a sender using the `sha256=` scheme (for docs, tests and benchmarks). */
export function signSha256(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

/** Signs like a Standard Webhooks sender: returns the three headers. */
export function signStandard(
  secret: string,
  id: string,
  timestampS: number,
  body: Buffer | string,
): Required<Omit<SignatureHeaders, 'x-webhook-signature'>> {
  const key = standardKey(secret) ?? Buffer.alloc(0);
  const sig = createHmac('sha256', key).update(`${id}.${timestampS}.`).update(body).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampS), 'webhook-signature': `v1,${sig}` };
}
