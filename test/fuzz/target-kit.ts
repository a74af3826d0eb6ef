/** What every fuzz target shares: the running app, its document, what the fuzzer knows, and id pools. */
import type { Express } from 'express';
import request from 'supertest';

import { listen, type RunningServer } from '@platform/http';

import type { OpenApiDocument, Operation } from './openapi-operations';
import type { FuzzContext } from './request-arbitrary';

/** A real service app (createApp with real deps on FerretDB and Redis) listening on a local port. */
export interface Target {
  app: Express;
  port: number;
  doc: OpenApiDocument;
  ctx: FuzzContext;
  close(): Promise<void>;
}

/**
 * Three pools of real ids per kind: `read` ones are only read (and triggered or executed), `write` ones are changed
 * but never deleted, `delete` ones may be deleted. So later requests still find objects to read and change.
 */
export interface Pools {
  read: string[];
  write: string[];
  delete: string[];
}

/** The pool `op` draws its path ids from: deletes their own, reads (and triggers, executions) the read pool. */
export const poolFor = (op: Operation, pools: Pools): string[] => {
  if (op.method === 'delete') return pools.delete;
  if (op.method === 'get' || op.rawBody || op.path.endsWith('/execute')) return pools.read;
  return pools.write;
};

/** The id field of a fixture's 201 answer (the first, when it is a list). */
export async function created(res: Promise<request.Response>, field: string): Promise<string> {
  const r = await res;
  if (r.status !== 201) throw new Error(`fixture answered ${r.status}: ${r.text}`);
  const value: unknown = r.body[field];
  return String(Array.isArray(value) ? value[0] : value);
}

export const times = <T>(n: number, make: () => Promise<T>) => Promise.all(Array.from({ length: n }, make));

/** The owner of every fixture, and another owner whose key must find none of them. */
export const OWNER = { user_id: 'fuzz-owner', org_id: 'fuzz-org' };
export const OTHER = { user_id: 'fuzz-other', org_id: 'other-org' };
/** Cron expressions the schedules accept. */
export const CRONS = ['*/5 * * * *', '0 9 * * MON-FRI', '0 0 1 1 *', '30 3 * * 0'];

/** The document as the app serves it at /openapi.json. */
export async function openapiOf(app: Express): Promise<OpenApiDocument> {
  return (await request(app).get('/openapi.json').expect(200)).body as OpenApiDocument;
}

/** Error-level lines of `lines` (a captured log) added since the previous call. */
export function errorLogReader(lines: string[]): () => string[] {
  let seen = lines.length;
  return () => {
    const fresh = lines.slice(seen).filter((l) => l.includes('"level":"error"'));
    seen = lines.length;
    return fresh;
  };
}

/** An app as a service's test helpers start it: the app, its captured log, its databases (to mint keys), close. */
export interface StartedApp {
  app: Express;
  lines: string[];
  dbs: { mintKey(owner: typeof OWNER): Promise<string> };
  close(): Promise<void>;
}

/**
 * Serves `t` as a fuzz target: mints the owner's and the other owner's keys, lets `prepare` make the fixtures and
 * name path ids and known values, listens on a local port. Any failure on the way closes what was started.
 */
export async function serveTarget(
  t: StartedApp,
  prepare: (keys: { key: string; otherKey: string }) => Promise<Pick<FuzzContext, 'pathIds' | 'known'>>,
): Promise<Target> {
  let server: RunningServer | undefined;
  try {
    const key = await t.dbs.mintKey(OWNER);
    const otherKey = await t.dbs.mintKey(OTHER);
    const ctx = await prepare({ key, otherKey });
    server = await listen(t.app, 0, undefined, '127.0.0.1');
    const running = server;
    return {
      app: t.app,
      port: server.port,
      doc: await openapiOf(t.app),
      ctx: { apiKey: key, otherApiKey: otherKey, newErrorLogs: errorLogReader(t.lines), ...ctx },
      close: async () => {
        await running.close(1_000);
        await t.close();
      },
    };
  } catch (err) {
    await server?.close(0);
    await t.close();
    throw err;
  }
}
