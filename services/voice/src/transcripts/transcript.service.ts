import { ConflictError, ValidationError } from '@platform/errors';

import { chatHistoryOf, deriveFields, fingerprintOf } from './transcript.derive';
import { TranscriptNotFoundError } from './transcript.errors';
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
  clock: () => Date;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Voice transcripts of an organization: idempotent ingest, reads, lists and per-agent stats. */
export function createTranscriptService({ repo, clock }: TranscriptServiceDeps) {
  /**
   * Counts a stored transcript in its agent's totals, once: the claim decides who counts it. A transcript stored by
   * an ingest that failed before counting it is counted by the runtime's retry of that ingest.
   */
  async function count(t: TranscriptRecord): Promise<void> {
    if (t.counted || !(await repo.claimCount(t.id))) return;
    await repo.addToTotals(t);
  }

  /** The stored transcript answers a replay of its own body; any other body for the session is a conflict. */
  async function replay(stored: TranscriptRecord, fingerprint: string) {
    if (stored.fingerprint !== fingerprint) {
      throw new ConflictError(`Transcript for session ${stored.sessionId} already exists with different content`);
    }
    await count(stored);
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
      const inserted = await repo.insert({
        ...fields,
        sessionId: input.sessionId,
        agentId: input.agentId,
        orgId: caller.org_id,
        userId: caller.user_id,
        sessionReport: input.sessionReport ?? {},
        chatHistory: chat.fromReport ? null : chat.items,
        fingerprint,
        now,
      });
      if (!inserted) {
        // A concurrent ingest of the same session stored it first.
        const winner = await repo.findBySession(caller.org_id, input.sessionId);
        if (!winner) throw new ConflictError(`Transcript for session ${input.sessionId} is being stored; retry`);
        return replay(winner, fingerprint);
      }
      await count(inserted);
      return { created: true, transcript: transcriptView({ ...inserted, chatHistory: chat.items }) };
    },

    async get(caller: Caller, sessionId: string): Promise<Transcript> {
      const t = await repo.findBySession(caller.org_id, sessionId.toLowerCase());
      if (!t) throw new TranscriptNotFoundError(sessionId.toLowerCase());
      return transcriptView(t);
    },

    async list(caller: Caller, q: ListQuery): Promise<TranscriptList> {
      const { items, total } = await repo.page(caller.org_id, q);
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
      const t = await repo.agentTotals(caller.org_id, agentId);
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
