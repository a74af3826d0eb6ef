import { ConflictError, ValidationError } from '@platform/errors';

import type { TallyRepository } from './tally.repository';
import { agentBucketKey, bucketOf, dayOf, dayTallyId, orgBucketKey, tallyId } from './transcript.buckets';
import { chatHistoryOf, deriveFields, fingerprintOf } from './transcript.derive';
import { TranscriptNotFoundError } from './transcript.errors';
import { readPage } from './transcript.pages';
import type { TranscriptRepository } from './transcript.repository';
import type {
  AgentStats,
  Caller,
  ListQuery,
  Transcript,
  TranscriptInput,
  TranscriptList,
  TranscriptRecord,
} from './transcript.types';
import { summaryView, transcriptView } from './transcript.views';

export interface TranscriptServiceDeps {
  repo: TranscriptRepository;
  tallies: TallyRepository;
  clock: () => Date;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Voice transcripts of an organization: idempotent ingest, reads, lists and per-agent stats. */
export function createTranscriptService({ repo, tallies, clock }: TranscriptServiceDeps) {
  /**
   * Counts a stored transcript in its organization's and agent's tallies, once: the claim decides who counts it.
   * A transcript stored by an ingest that failed before counting is counted by the runtime's retry of that ingest.
   */
  async function tally(t: TranscriptRecord): Promise<void> {
    if (t.tallied || !(await repo.claimTally(t.id))) return;
    const day = dayOf(new Date(t.startedAt));
    const bucket = bucketOf(new Date(t.startedAt));
    const entries = [
      { id: tallyId(t.orgId), key: day },
      { id: tallyId(t.orgId, t.agentId), key: day },
      { id: dayTallyId(t.orgId, day), key: bucket },
      { id: dayTallyId(t.orgId, day, t.agentId), key: bucket },
    ];
    await tallies.add(entries, t.messageCount, t.durationMs);
  }

  async function replay(
    stored: TranscriptRecord,
    fingerprint: string,
  ): Promise<{ created: boolean; transcript: Transcript }> {
    if (stored.fingerprint !== fingerprint) {
      throw new ConflictError(`Transcript for session ${stored.sessionId} already exists with different content`);
    }
    await tally(stored);
    return { created: false, transcript: transcriptView(stored) };
  }

  return {
    /** Stores a call's transcript (201), or answers a replay with the stored one (200); another body → 409. */
    async ingest(caller: Caller, body: TranscriptInput): Promise<{ created: boolean; transcript: Transcript }> {
      const input = { ...body, sessionId: body.sessionId.toLowerCase() };
      if (input.startedAt && input.endedAt && Date.parse(input.endedAt) < Date.parse(input.startedAt)) {
        throw ValidationError.field(['body', 'endedAt'], 'Must not be before startedAt', 'value_error');
      }
      const fingerprint = fingerprintOf(input);
      const stored = await repo.findBySession(caller.org_id, input.sessionId);
      if (stored) return replay(stored, fingerprint);

      const now = clock();
      const chat = chatHistoryOf(input);
      const fields = deriveFields(input, chat.items, now);
      const bucket = bucketOf(fields.startedAt);
      const inserted = await repo.insert({
        ...fields,
        sessionId: input.sessionId,
        agentId: input.agentId,
        orgId: caller.org_id,
        userId: caller.user_id,
        sessionReport: input.sessionReport ?? {},
        chatHistory: chat.fromReport ? null : chat.items,
        fingerprint,
        orgBucket: orgBucketKey(caller.org_id, bucket),
        agentBucket: agentBucketKey(caller.org_id, input.agentId, bucket),
        now,
      });
      if (!inserted) {
        // A concurrent ingest of the same session stored it first.
        const winner = await repo.findBySession(caller.org_id, input.sessionId);
        if (!winner) throw new ConflictError(`Transcript for session ${input.sessionId} is being stored; retry`);
        return replay(winner, fingerprint);
      }
      await tally(inserted);
      return { created: true, transcript: transcriptView({ ...inserted, chatHistory: chat.items }) };
    },

    async get(caller: Caller, sessionId: string): Promise<Transcript> {
      const t = await repo.findBySession(caller.org_id, sessionId.toLowerCase());
      if (!t) throw new TranscriptNotFoundError(sessionId.toLowerCase());
      return transcriptView(t);
    },

    async list(caller: Caller, q: ListQuery): Promise<TranscriptList> {
      const { items, total } = await readPage({ repo, tallies }, caller.org_id, q);
      const next = q.offset + items.length;
      return {
        items: items.map(summaryView),
        total,
        limit: q.limit,
        offset: q.offset,
        nextOffset: items.length > 0 && next < total ? next : null,
      };
    },

    /** Calls of one of the organization's agents, with their mean message count and duration (0 without calls). */
    async agentStats(caller: Caller, agentId: string): Promise<AgentStats> {
      const t = await tallies.read(tallyId(caller.org_id, agentId));
      if (t.calls === 0) return { totalCalls: 0, avgMessages: 0, avgDurationMs: 0 };
      return {
        totalCalls: t.calls,
        avgMessages: round2(t.messages / t.calls),
        avgDurationMs: Math.round(t.durationMs / t.calls),
      };
    },
  };
}

export type TranscriptService = ReturnType<typeof createTranscriptService>;
