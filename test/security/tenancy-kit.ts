/**
 * The cross-tenant matrix: every API route of a service gets a probe, and each probe is run as user B (same
 * organization as A, another user) and user C (another organization) against the objects user A owns.
 *
 * The rule under test is contract §1's: another owner's object answers exactly as if it did not exist. So most probes
 * compare: B's answer for A's object must equal A's own answer for an object that does not exist (same status, same
 * body, once A's id in the body is read as the absent one). Lists must not show A's objects and must count none of
 * them. Where a service scopes by organization (voice, OCR), B is A's colleague and sees what A sees.
 */
import type { Express } from 'express';
import request from 'supertest';

import { routeKey, routeTable } from '../fuzz/route-table';

export type Actor = 'A' | 'B' | 'C';
export const USERS: Record<Actor, { user_id: string; org_id: string }> = {
  A: { user_id: 'tenant-a', org_id: 'org-1' },
  B: { user_id: 'tenant-b', org_id: 'org-1' },
  C: { user_id: 'tenant-c', org_id: 'org-2' },
};

export interface Req {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  body?: unknown;
  /** A multipart upload instead of a JSON body. */
  file?: { field: string; bytes: Buffer; name: string };
  headers?: Record<string, string>;
}

export const get = (path: string): Req => ({ method: 'get', path });
export const post = (path: string, body?: unknown): Req => ({ method: 'post', path, body });
export const put = (path: string, body?: unknown): Req => ({ method: 'put', path, body });
export const patch = (path: string, body?: unknown): Req => ({ method: 'patch', path, body });
export const del = (path: string): Req => ({ method: 'delete', path });

/**
 * - `hidden`: a request naming A's object (`own`); B and C must get what A gets for `absent`, an id of the same
 *   kind that names nothing. Reads are also sent by A for `own` and must succeed (the probe reaches something).
 *   A 4xx of validation for `absent` fails the probe (it never reached an owner check) unless `absentStatus` says
 *   that is how the service answers a reference to a missing object.
 * - `list`: B's and C's answers must not name any of `own` and every count in them must be 0; A's must name them all.
 * - `create`: B and C create their own object (bodies may claim A's ids); the end snapshot proves A saw no change.
 * - `custom`: a check of its own, returning what it found wrong; `sample` is a valid request of A's (other suites).
 * - `exempt`: not owner-scoped, with the reason.
 */
export type Probe =
  | {
      kind: 'hidden';
      req: (id: string) => Req;
      own: string;
      absent: string;
      absentStatus?: number;
      /** Why A's own write cannot run in this world (the other suites skip it then; the matrix still runs). */
      ownWriteElsewhere?: string;
    }
  | { kind: 'list'; req: Req; own: string[] }
  | { kind: 'create'; req: Req; status?: number; sample?: Req }
  | {
      kind: 'custom';
      run: (send: (actor: Actor, req: Req) => Promise<request.Response>) => Promise<string[]>;
      sample: Req;
    }
  | { kind: 'exempt'; why: string };

export interface World {
  service: string;
  /** `owner`: objects belong to a user of an organization; `org`: to the organization (voice, OCR). */
  scope: 'owner' | 'org';
  app: Express;
  keys: Record<Actor, string>;
  /** One probe per route, keyed by `routeKey` (`GET /v3/agents/{}`). */
  probes: Record<string, Probe>;
  /** A's reads whose answers must be the same after every probe ran (objects, lists and their counts). */
  snapshot: Req[];
  close(): Promise<void>;
}

export async function send(app: Express, key: string, req: Req): Promise<request.Response> {
  let t = request(app)[req.method](req.path).set('x-api-key', key);
  for (const [k, v] of Object.entries(req.headers ?? {})) t = t.set(k, v);
  if (req.file) return t.attach(req.file.field, req.file.bytes, req.file.name);
  return req.body === undefined ? t : t.send(req.body as object);
}

const answer = (r: request.Response) => ({ status: r.status, body: r.body as unknown });

/**
 * Statistics the platform writes in the background after A's own triggers and runs (coalesced to at most one write a
 * second), so they may move between the two snapshots whatever B and C do; nothing B or C can call changes them.
 */
const BACKGROUND_STATS = new Set([
  'trigger_count',
  'last_triggered_at',
  'last_trigger_success',
  'run_count',
  'last_run_at',
  'last_run_success',
]);
function steady(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(steady);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !BACKGROUND_STATS.has(k))
        .map(([k, v]) => [k, steady(v)]),
    );
  return value;
}
const snapshotOf = (r: request.Response) => ({ status: r.status, body: steady(r.body) });
const show = (r: { status: number; body: unknown }) => `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
const swap = (r: request.Response, own: string, absent: string) => {
  const text = JSON.stringify(r.body ?? null)
    .split(own)
    .join(absent);
  return { status: r.status, body: JSON.parse(text) as unknown };
};

/** Counts in a list answer (`total`, `totalCalls`, ...): numbers under keys that name a count. */
function counts(body: unknown, out: number[] = []): number[] {
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) {
      if (typeof v === 'number' && /total|count/i.test(k)) out.push(v);
      else counts(v, out);
    }
  }
  return out;
}

/** The routes of `world.app` without a probe, and probes naming no route. */
export function coverage(world: World): { unprobed: string[]; stale: string[] } {
  const routes = routeTable(world.app);
  const probed = new Set(Object.keys(world.probes).map((k) => routeKey(k.split(' ')[0]!, k.split(' ')[1]!)));
  return {
    unprobed: [...routes].filter((r) => !probed.has(r)).sort(),
    stale: [...probed].filter((p) => !routes.has(p)).sort(),
  };
}

/** Runs every probe of `world` as B and C; returns what was found wrong (empty: tenants are isolated). */
export async function runMatrix(world: World): Promise<string[]> {
  const found: string[] = [];
  const as = (actor: Actor, req: Req) => send(world.app, world.keys[actor], req);
  const before = await Promise.all(world.snapshot.map((r) => as('A', r).then(snapshotOf)));
  // Lists and reads first, while B and C own nothing; then what makes objects of theirs.
  const rank = { list: 0, hidden: 1, exempt: 2, custom: 3, create: 4 } as const;
  const ordered = Object.entries(world.probes).sort(([, a], [, b]) => rank[a.kind] - rank[b.kind]);
  for (const [route, probe] of ordered) {
    const fail = (actor: Actor | 'A', what: string) => found.push(`${world.service} ${route} as ${actor}: ${what}`);
    if (probe.kind === 'hidden') {
      const ownReq = probe.req(probe.own);
      if (ownReq.method === 'get') {
        const mine = await as('A', ownReq);
        if (mine.status >= 300) fail('A', `the probe reaches nothing: A's own read answered ${show(mine)}`);
      }
      const expected = answer(await as('A', probe.req(probe.absent)));
      // A malformed probe is refused before any owner is looked at, and would prove nothing.
      if ([400, 415, 422].includes(expected.status) && expected.status !== probe.absentStatus)
        fail('A', `the probe is malformed: ${show(expected)}`);
      for (const actor of ['B', 'C'] as const) {
        const sameOrg = world.scope === 'org' && actor === 'B';
        const got = await as(actor, probe.req(probe.own));
        // A colleague gets what A gets (for a write, the same status: the new object's id differs).
        const colleague = (r: request.Response) =>
          ownReq.method === 'get' ? answer(r) : { status: r.status, body: null };
        const want = sameOrg ? colleague(await as('A', ownReq)) : expected;
        const seen = sameOrg ? colleague(got) : swap(got, probe.own, probe.absent);
        if (JSON.stringify(seen) !== JSON.stringify(want))
          fail(actor, `answered ${show(answer(got))}, expected ${show(want)}`);
      }
    } else if (probe.kind === 'list') {
      const mine = await as('A', probe.req);
      const names = (text: string, id: string) => text.includes(`"${id}"`);
      const missing = probe.own.filter((id) => !names(JSON.stringify(mine.body), id));
      if (mine.status !== 200 || missing.length > 0)
        fail('A', `own list does not show ${missing.join(', ')}: ${show(answer(mine))}`);
      for (const actor of ['B', 'C'] as const) {
        const got = await as(actor, probe.req);
        const text = JSON.stringify(got.body);
        if (world.scope === 'org' && actor === 'B') {
          if (probe.own.some((id) => !names(text, id)))
            fail(actor, `a colleague's list misses the organization's objects: ${show(answer(got))}`);
          continue;
        }
        if (got.status !== 200) fail(actor, `answered ${show(answer(got))}`);
        const leaked = probe.own.filter((id) => names(text, id));
        if (leaked.length > 0) fail(actor, `list shows A's ${leaked.join(', ')}`);
        if (counts(got.body).some((n) => n !== 0)) fail(actor, `list counts A's objects: ${show(answer(got))}`);
      }
    } else if (probe.kind === 'create') {
      for (const actor of ['B', 'C'] as const) {
        const got = await as(actor, probe.req);
        if (got.status !== (probe.status ?? 201)) fail(actor, `create answered ${show(answer(got))}`);
      }
    } else if (probe.kind === 'custom') {
      for (const problem of await probe.run(as)) fail('B', problem);
    }
  }
  const after = await Promise.all(world.snapshot.map((r) => as('A', r).then(snapshotOf)));
  world.snapshot.forEach((r, i) => {
    if (JSON.stringify(after[i]) !== JSON.stringify(before[i])) {
      found.push(
        `${world.service} A's ${r.method.toUpperCase()} ${r.path} changed while B and C probed: ${show(before[i]!)} → ${show(after[i]!)}`,
      );
    }
  });
  return found;
}

/** Mints the keys of A, B and C. */
export async function mintKeys(
  mint: (owner: { user_id: string; org_id: string }) => Promise<string>,
): Promise<Record<Actor, string>> {
  return { A: await mint(USERS.A), B: await mint(USERS.B), C: await mint(USERS.C) };
}

/** The id field of a 2xx answer, or an error naming the fixture. */
export async function idOf(
  res: Promise<request.Response> | request.Response,
  field: string,
  what: string,
): Promise<string> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what} answered ${r.status}: ${r.text}`);
  const value: unknown = (r.body as Record<string, unknown>)[field];
  return String(Array.isArray(value) ? value[0] : value);
}
