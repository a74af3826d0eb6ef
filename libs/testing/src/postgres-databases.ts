import { execFileSync } from 'node:child_process';

import { infraEnv } from './infra-env';
import { uniqueName } from './names';

const psql = (url: string, sql: string) =>
  execFileSync('psql', [url, '-qAtc', sql], { stdio: ['ignore', 'ignore', 'pipe'], env: infraEnv() });

/** `url` with another database (`postgres`, the maintenance database, where databases are created and dropped). */
function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates a database of a unique name on the PostgreSQL server of `serverUrl`; returns its URL. */
export function createDatabase(serverUrl: string, prefix: string): string {
  const name = uniqueName(prefix);
  psql(withDatabase(serverUrl, 'postgres'), `CREATE DATABASE ${name}`);
  return withDatabase(serverUrl, name);
}

/** The name of the database of `url`, one `createDatabase` makes (safe in SQL as it is). */
function nameOf(url: string): string {
  const name = new URL(url).pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database this helper created: ${url}`);
  return name;
}

/** Drops the database of `url` (ending its sessions); quietly does nothing when it or its server is gone. */
export function dropDatabase(url: string): void {
  const name = nameOf(url);
  try {
    psql(withDatabase(url, 'postgres'), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch {
    // the server is gone: nothing left to drop on it
  }
}

/**
 * Lets clients connect to the database of `url` again, or refuses them and ends the sessions it has (as if its server
 * were gone, for this database only).
 */
export function allowConnections(url: string, allow: boolean): void {
  const name = nameOf(url);
  const end = `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`;
  psql(withDatabase(url, 'postgres'), `ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allow}${allow ? '' : `; ${end}`}`);
}
