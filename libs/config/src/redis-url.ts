import Joi from 'joi';

/** A host and port of a Redis node (or a Sentinel). */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where a process finds Redis, read from one URL:
 * - `redis://[user:pass@]host[:port][/db]` (or `rediss://`, TLS): one node;
 * - `redis+cluster://[user:pass@]host1:port1,host2:port2,...` (or `rediss+cluster://`): a Redis Cluster, from seed
 *   nodes (the others are discovered);
 * - `redis+sentinel://[user:pass@]host1:26379,host2:26379/<master name>[/db]` (or `rediss+sentinel://`): the master
 *   that Sentinel names, followed through failovers. The password is the data nodes' (Sentinel without auth).
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: RedisNode[]; tls: boolean; username?: string; password?: string }
  | {
      kind: 'sentinel';
      sentinels: RedisNode[];
      name: string;
      db: number;
      tls: boolean;
      username?: string;
      password?: string;
    };

const SCHEMES = /^(rediss?)(\+cluster|\+sentinel)?:\/\/(.*)$/i;
const NODE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?$/;
/** Nodes one URL may list. */
export const MAX_REDIS_NODES = 64;

/** Parses a Redis URL of any form above; throws an Error saying what is wrong. */
export function parseRedisUrl(url: string): RedisTarget {
  const m = SCHEMES.exec(url.trim());
  if (!m) throw new Error('must start with redis://, rediss://, redis+cluster://, or redis+sentinel:// (or rediss+…)');
  const tls = m[1]!.toLowerCase() === 'rediss';
  const mode = (m[2] ?? '').toLowerCase();
  if (!mode) {
    const parsed = new URL(url.trim());
    if (!parsed.hostname) throw new Error('names no host');
    return { kind: 'single', url: url.trim() };
  }
  let rest = m[3]!;
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(':');
    const user = decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : '');
    const pass = decodeURIComponent(colon >= 0 ? auth.slice(colon + 1) : auth);
    if (user) username = user;
    if (pass) password = pass;
  }
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query); // options are not read from cluster and sentinel URLs
  const [hostList = '', ...path] = rest.split('/');
  const defaultPort = mode === '+sentinel' ? 26379 : 6379;
  const nodes = hostList.split(',').map((h) => node(h, defaultPort));
  if (nodes.length === 0 || !hostList) throw new Error('names no node');
  if (nodes.length > MAX_REDIS_NODES) throw new Error(`names more than ${MAX_REDIS_NODES} nodes`);
  if (mode === '+cluster') {
    if (path.some((p) => p !== '' && p !== '0')) throw new Error('a cluster URL names no database (Cluster has db 0)');
    return { kind: 'cluster', nodes, tls, ...(username ? { username } : {}), ...(password ? { password } : {}) };
  }
  const name = decodeURIComponent(path[0] ?? '');
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name)) throw new Error('a sentinel URL ends with /<master name>');
  const db = path[1] ? Number(path[1]) : 0;
  if (!Number.isInteger(db) || db < 0 || db > 15) throw new Error('database must be 0 to 15');
  return {
    kind: 'sentinel',
    sentinels: nodes,
    name,
    db,
    tls,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}

function node(text: string, defaultPort: number): RedisNode {
  const m = NODE.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not host[:port]`);
  const port = m[2] ? Number(m[2]) : defaultPort;
  if (port < 1 || port > 65535) throw new Error(`port ${port} is out of range`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/** A joi rule for a Redis URL variable: any form `parseRedisUrl` reads. */
export function redisUrlSchema(): Joi.StringSchema {
  return Joi.string().custom((value: string) => {
    parseRedisUrl(value); // its Error becomes the variable's problem
    return value;
  });
}
