import type { Connection } from '@platform/db';

/**
 * What earlier versions stored and nothing reads any more: the indexes of the 15-minute time buckets that lists once
 * read transcripts by, and the counts per organization and per day kept beside the agents' totals (whose `_id`s begin
 * `["org",`, `["org-day",` and `["agent-day",`). Transcripts written then keep their `org_bucket` and
 * `agent_bucket` fields (nothing reads them, nothing needs them rewritten); the agents' totals (`["agent", …]`) and
 * the transcripts' `tallied` flags are read as they are.
 */
export const RETIRED = {
  transcriptIndexes: ['org_bucket_1_started_at_1', 'agent_bucket_1_started_at_1'],
  tallyPrefixes: ['["org",', '["org-day",', '["agent-day",'],
};

/** Server error codes of something already gone: a replica starting at the same time dropped it first. */
const GONE = new Set([26 /* NamespaceNotFound */, 27 /* IndexNotFound */]);
const unlessGone = (err: unknown) => {
  if (!GONE.has((err as { code?: unknown }).code as number)) throw err;
};

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes what `RETIRED` names, where it exists, and says what it removed. Idempotent, and safe for replicas starting
 * together: run at start, before serving.
 */
export async function migrateTranscriptStore(conn: Connection): Promise<{ indexes: string[]; tallies: number }> {
  const db = conn.db;
  if (!db) throw new Error('the voice database is not connected');
  const present = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  const indexes: string[] = [];
  if (present.has('transcripts')) {
    const transcripts = db.collection('transcripts');
    const existing = new Set((await transcripts.indexes()).map((i) => i.name));
    for (const name of RETIRED.transcriptIndexes.filter((n) => existing.has(n))) {
      await transcripts.dropIndex(name).catch(unlessGone);
      indexes.push(name);
    }
  }
  let tallies = 0;
  if (present.has('transcript_tallies')) {
    // Anchored prefixes of `_id`: each one a range of the `_id` index.
    const prefixes = RETIRED.tallyPrefixes.map((p) => new RegExp(`^${escapeRegex(p)}`));
    const r = await db.collection<{ _id: string }>('transcript_tallies').deleteMany({ _id: { $in: prefixes } });
    tallies = r.deletedCount;
  }
  return { indexes, tallies };
}
