/**
 * What a MongoDB or Redis span says of its command (`db.query.text`): the command's shape, never its values, built in
 * a few field reads. The instrumentations' own default serializes the whole command with every value masked, which
 * for an inserted document means walking all of it (6.6 KB of text for one execution) on every command, sampled or
 * not; and for Redis scripts (EVALSHA, what BullMQ sends) it writes every argument, job data included.
 */

/** Fields of a part of a command named in the text, at most. */
const MAX_FIELDS = 12;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function fieldsOf(v: Record<string, unknown>): string {
  const keys = Object.keys(v);
  const shown = keys.slice(0, MAX_FIELDS).join(',');
  return keys.length > MAX_FIELDS ? `${shown},…` : shown;
}

/**
 * A MongoDB command's shape: each top-level part, with the field names of the parts that are documents
 * (`find filter{status,agent_id} sort{created_at} limit`). For an insert, what the instrumentation passes is the first
 * document, so the text is its field names.
 */
export function mongoStatement(cmd: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(cmd)) {
    if (parts.length === MAX_FIELDS) {
      parts.push('…');
      break;
    }
    parts.push(isPlainObject(value) ? `${key}{${fieldsOf(value)}}` : key);
  }
  return parts.join(' ');
}

/** Longest key name shown for a Redis command. */
const MAX_KEY = 100;

/**
 * A Redis command's name and, when it is a string key, its first argument (`hget bull:runs:123`); for scripts
 * (`evalsha`) the name alone, since their first argument is the script's hash.
 */
export function redisStatement(name: string, args: unknown[]): string {
  if (name === 'evalsha' || name === 'eval' || name === 'auth') return name;
  const first = args[0];
  return typeof first === 'string' && first.length <= MAX_KEY ? `${name} ${first}` : name;
}
