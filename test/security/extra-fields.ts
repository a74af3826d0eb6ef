/** Mass assignment: server-owned fields a client might try to set, with values that appear nowhere else. */
import { dumpDatabases } from './dump';
import { send, USERS, type Req } from './tenancy-kit';
import type { SecurityWorld } from './worlds';

const FOREIGN_ID = 'a5a5a5a5a5a5a5a5a5a5a5a5';
const EPOCH = '1999-09-09T09:09:09.000Z';
const COUNT = 987654321;
export const EXTRA_FIELDS: Record<string, unknown> = {
  _id: FOREIGN_ID,
  id: FOREIGN_ID,
  user_id: 'mallory-user',
  org_id: 'mallory-org',
  orgId: 'mallory-org',
  createdByUserId: 'mallory-user',
  owner: 'mallory-user',
  created_at: EPOCH,
  updated_at: EPOCH,
  createdAt: EPOCH,
  status: 'mallory-status',
  trigger_count: COUNT,
  run_count: COUNT,
  attempt: COUNT,
  last_triggered_at: EPOCH,
  last_run_at: EPOCH,
  next_run_time: EPOCH,
  secret_key: 'whsec_mallory',
  key_hash: 'mallory-hash',
  webhook_url: 'https://mallory.example/hook',
  credential_id: FOREIGN_ID,
  task_id: 'mallory-task',
};
/** What would show that an extra field was kept. */
export const TRACES = ['mallory', FOREIGN_ID, '1999-09-09', String(COUNT)];

/** The write request of a probe, with the extra fields added to its body (or query, for uploads). */
function withExtras(req: Req): Req {
  if (req.file) {
    const sep = req.path.includes('?') ? '&' : '?';
    return {
      ...req,
      path: `${req.path}${sep}${new URLSearchParams(Object.entries(EXTRA_FIELDS).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
    };
  }
  if (Array.isArray(req.body)) return req; // a bare array (bulk pause) has no fields to add
  return { ...req, body: { ...((req.body as object | undefined) ?? {}), ...EXTRA_FIELDS } };
}

/** The owner's write request of each write route: the probe's request on A's own object. */
export function writes(world: SecurityWorld): Record<string, Req | string> {
  const out: Record<string, Req | string> = {};
  // Creations and actions first, then replacements (PUT may drop what a run needs), bulk deletions last.
  const rank = (route: string) => (route.includes('bulk-delete') ? 2 : /^(PUT|PATCH) /.test(route) ? 1 : 0);
  const routes = Object.entries(world.probes).sort(([a], [b]) => rank(a) - rank(b));
  for (const [route, probe] of routes) {
    if (!/^(POST|PUT|PATCH) /.test(route)) continue;
    if (probe.kind === 'hidden') out[route] = probe.ownWriteElsewhere ?? probe.req(probe.own);
    else if (probe.kind === 'create') out[route] = probe.sample ?? probe.req;
    else if (probe.kind === 'custom') out[route] = probe.sample;
    else if (probe.kind === 'exempt') out[route] = probe.why;
    else out[route] = 'a list is not a write';
  }
  return out;
}

/** Sends every write of `world` as its owner with the extra fields; returns what was kept or went wrong. */
export async function massAssignmentFindings(world: SecurityWorld): Promise<string[]> {
  const found: string[] = [];
  for (const [route, req] of Object.entries(writes(world))) {
    if (typeof req === 'string') continue;
    const marked = await send(world.app, world.keys.A, withExtras(req));
    const answered = JSON.stringify(marked.body ?? null);
    if (marked.status >= 500) found.push(`${route}: ${marked.status}`);
    else if (marked.status >= 300 && marked.status !== 422) {
      // Refused for another reason: the same request without the extras must be refused the same way.
      const plain = await send(world.app, world.keys.A, req);
      if (plain.status !== marked.status)
        found.push(`${route}: ${marked.status} with the extra fields, ${plain.status} without`);
    }
    const echoed = TRACES.filter((t) => answered.includes(t));
    if (echoed.length > 0) found.push(`${route}: the answer carries ${echoed.join(', ')}: ${answered.slice(0, 300)}`);
  }
  const dump = await dumpDatabases(world.dbs);
  for (const d of dump) {
    const kept = TRACES.filter((t) => d.text.includes(t));
    if (kept.length > 0) found.push(`${d.db}.${d.collection} stored ${kept.join(', ')}: ${d.text.slice(0, 300)}`);
  }
  if (!dump.some((d) => d.text.includes(USERS.A.user_id))) found.push("the dump holds none of the owner's documents");
  return found;
}
