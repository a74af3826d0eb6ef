import { isDuplicateKeyError, type Connection } from '@platform/db';

import { chatMessageModel } from '../inference/memory.model';
import { createSessionRepository } from './session.repository';
import type { NewSession, Owner } from './session.types';

/** Marks a database whose stored turns all have session records (written once the backfill has run through). */
const MARK = { _id: 'sessions-backfill-1' };
/** Records inserted at once (each insert refused by the unique index where a record exists). */
const INSERTS_AT_ONCE = 64;

type Found = { owner: Owner; session: NewSession };

/**
 * Gives every session whose turns were stored before session records existed its record, so that the session lists
 * (`GET /v3/sessions?agent_id=`) show it: once per database, in one pass over the stored messages (a cursor, no sort),
 * the record of each (owner, session) dated by its first turn and belonging to that turn's agent. A session that has a
 * record keeps it unchanged (the unique index refuses the insert). Several replicas starting at once each run it; the
 * records are the same, and the mark is written once. Returns the sessions examined, or null when already done.
 */
export async function backfillSessionRecords(conn: Connection): Promise<{ sessions: number } | null> {
  const migrations = conn.db!.collection<{ _id: string; at: Date }>('migrations');
  if (await migrations.findOne(MARK)) return null;
  const first = new Map<string, Found>();
  const cursor = chatMessageModel(conn)
    .collection.find({}, { projection: { user_id: 1, org_id: 1, agent_id: 1, session_id: 1, turn_at: 1 } })
    .batchSize(1_000);
  for await (const m of cursor) {
    const key = JSON.stringify([m.user_id, m.org_id, m.session_id]);
    const at = m.turn_at as Date;
    const seen = first.get(key);
    if (seen && seen.session.at <= at) continue;
    first.set(key, {
      owner: { user_id: String(m.user_id), org_id: String(m.org_id) },
      session: { sessionId: String(m.session_id), agentId: Number(m.agent_id), metadata: {}, at },
    });
  }
  const sessions = createSessionRepository(conn);
  const found = [...first.values()];
  for (let i = 0; i < found.length; i += INSERTS_AT_ONCE)
    await Promise.all(found.slice(i, i + INSERTS_AT_ONCE).map((f) => sessions.ensure(f.owner, f.session)));
  await migrations.insertOne({ ...MARK, at: new Date() }).catch((err: unknown) => {
    if (!isDuplicateKeyError(err)) throw err; // another replica finished it at the same time
  });
  return { sessions: found.length };
}
