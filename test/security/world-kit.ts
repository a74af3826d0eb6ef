/** What every security world is made of: the world's shape, ids that name nothing, and a world of an in-process app. */
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import type { LocalServer, TestDatabases } from '@platform/testing';

import { idOf, type Req, type World } from './tenancy-kit';

/** A world plus what the other suites read: the captured log lines and the databases to dump. */
export interface SecurityWorld extends World {
  /** Null where the service's test helper keeps its log to itself (graph's GraphStack). */
  lines: string[] | null;
  dbs: TestDatabases[];
  /** Plaintext secrets A handed to the service or got from it (provider API keys, webhook secrets, header values). */
  secrets: string[];
  /** The secrets the contract shows to their owner in answers (a Webhook object carries its `secret_key`). */
  shown: string[];
  /** Local servers standing in for things outside the product, and what reached them. */
  stubs: Record<string, LocalServer>;
}

/** A fresh ObjectId-shaped id. */
export const hexId = () => randomBytes(12).toString('hex');

/** Sends a request to `app` with the API key `key`. */
export const sender = (app: Express, key: string) => (req: Req) =>
  request(app)
    [req.method](req.path)
    .set('x-api-key', key)
    .send(req.body as object);

/** An A object's id that names nothing any more: created by A, then deleted. */
export async function deletedId(
  app: Express,
  key: string,
  create: Req,
  field: string,
  deletePath: (id: string) => string,
): Promise<string> {
  const id = await idOf(sender(app, key)(create), field, `absent ${create.path}`);
  const gone = await request(app).delete(deletePath(id)).set('x-api-key', key);
  if (gone.status !== 204) throw new Error(`deleting ${deletePath(id)} answered ${gone.status}`);
  return id;
}

/** A world of an in-process app from a service's test helpers (its app, captured log, databases and close). */
export function worldOf(
  t: { app: Express; lines: string[]; dbs: TestDatabases; close(): Promise<void> },
  parts: Pick<World, 'service' | 'scope' | 'keys' | 'probes' | 'snapshot'> & Partial<SecurityWorld>,
): SecurityWorld {
  return {
    lines: t.lines,
    dbs: [t.dbs],
    secrets: [],
    shown: [],
    stubs: {},
    close: () => t.close(),
    app: t.app,
    ...parts,
  };
}
