/**
 * Values that look like secrets and are not: placeholders, documentation keys, identifiers and hashes. Shared by the
 * gitleaks table and our own rules; each test looks at the candidate secret (and, for hashes, the line around it).
 */

/** Shannon entropy of a string, in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const PLACEHOLDER_WORDS =
  /(?:^|[^a-z])(?:your|my|insert|enter|replace|put)[_\-. ]?(?:own[_\-. ]?)?(?:[a-z]+[_\-. ]?){0,2}(?:key|token|secret|password|passwd|pass|pwd|here)|example|placeholder|redacted|changeme|change[_-]me|dummy|not[_-]?a[_-]?(?:real|secret)|<[^<>]{1,60}>|\*{3,}|x{5,}|\.{3,}|_here(?:$|[^a-z])/i;
const TEMPLATE =
  /^(?:\$\{?[A-Za-z_][\w.]*\}?|\{[\w.[\]'"()-]+\}|%\(\w+\)s|\{\{.*\}\}|%[A-Za-z_]+%|\$\(.*\)|process\.env\.\w+|os\.environ.*|env\(.*\))$/;
const SEQUENCES = ['12345678', '0123456789', 'abcdefghijkl', 'qwertyuiop', '98765432'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_DIGEST = /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128})$/i;
const HASH_PREFIX = /^(?:sha(?:1|224|256|384|512)|md5|blake2b?|h1)[-:]/i;
/** Words near a hex digest that say it is a hash, in prose or in snake_case names (`deploy_key_sha1`). */
const HASH_CONTEXT =
  /(?<![a-z])(?:sha(?:1|224|256|384|512)?|md5|hash|checksum|digest|integrity|commit|revision|rev|etag|fingerprint|resolved)(?![a-z])/i;

/** A placeholder, template variable or documentation value rather than a secret (`YOUR_API_KEY`, `${TOKEN}`, `xxxx`). */
export function isPlaceholder(secret: string): boolean {
  if (TEMPLATE.test(secret) || PLACEHOLDER_WORDS.test(secret)) return true;
  const lower = secret.toLowerCase();
  if (SEQUENCES.some((s) => lower.includes(s))) return true;
  // Very few distinct characters (`aaaaaaaaaaaa`, `abababab`) is a pattern, not a generated value.
  const body = lower.replace(/^[a-z]{2,8}[_-]/, '');
  return new Set(body).size < Math.min(4, Math.ceil(body.length / 4));
}

/**
 * An identifier or digest that generic rules mistake for a key: UUIDs, git SHAs and lockfile hashes (`sha512-…`,
 * a bare hex digest on a line that speaks of hashes, commits or checksums).
 */
export function isIdentifierOrHash(secret: string, line: string): boolean {
  if (UUID.test(secret) || HASH_PREFIX.test(secret)) return true;
  return HEX_DIGEST.test(secret) && HASH_CONTEXT.test(line);
}

/**
 * An identifier made of words and numbers (`prod-db-credentials-2023`, `auth_token_v2_storage_key`,
 * `gpt-4-turbo-browsing`), not a random value: every part is a number, a short abbreviation, or a lower-case,
 * Capitalised or UPPER-CASE word with a vowel and at most a few trailing digits.
 */
export function wordsIdentifier(v: string): boolean {
  const parts = v.split(/[_.:/=-]/);
  return (
    parts.length >= 2 &&
    parts.every(
      (p) =>
        /^\d{1,8}$/.test(p) ||
        /^[a-zA-Z]{1,3}\d{0,2}$/.test(p) ||
        /^(?=.{4,16}$)(?:[A-Z]?[a-z]*[aeiouy][a-z]*|[A-Z]*[AEIOUY][A-Z]*)\d{0,4}$/.test(p),
    )
  );
}

/** The line of `text` holding [start, end). */
export function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to < 0 ? text.length : to);
}
