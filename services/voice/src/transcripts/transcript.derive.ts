import { createHash } from 'node:crypto';

import type { ChatItem, DerivedFields, TranscriptInput } from './transcript.types';

/** Largest instant a JavaScript Date holds (±8.64e15 ms). */
const MAX_DATE_MS = 8.64e15;
const valid = (ms: number | undefined): number | undefined =>
  ms !== undefined && Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : undefined;

/**
 * An instant as the voice runtime writes it: epoch seconds (LiveKit's `time.time()` floats) or an ISO 8601 string.
 * Undefined for anything else, or outside what a Date holds.
 */
export function instantMs(value: unknown): number | undefined {
  if (typeof value === 'number') return valid(value * 1000);
  if (typeof value === 'string' && value !== '') return valid(Date.parse(value));
  return undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The chat history a transcript shows: the body's `chatHistory`, else the items of the report's `chat_history`
 * (LiveKit's `ChatContext.to_dict()`), keeping the entries that are objects with a string `type`.
 */
export function chatHistoryOf(input: TranscriptInput): { items: ChatItem[]; fromReport: boolean } {
  if (input.chatHistory) return { items: input.chatHistory, fromReport: false };
  const history = input.sessionReport?.chat_history;
  const items = isRecord(history) && Array.isArray(history.items) ? history.items : [];
  return { items: items.filter((i): i is ChatItem => isRecord(i) && typeof i.type === 'string'), fromReport: true };
}

/** The reason of the report's `close` event (LiveKit's CloseEvent), if any. */
function closeReasonOf(report: Record<string, unknown>): string | undefined {
  const events = Array.isArray(report.events) ? report.events : [];
  const close = events.find((e): e is Record<string, unknown> => isRecord(e) && e.type === 'close');
  return typeof close?.reason === 'string' ? close.reason : undefined;
}

/** The earliest and latest item times (a loop: a spread of 100,000 arguments would overflow the stack). */
function itemSpan(items: ChatItem[]): { first?: number; last?: number } {
  let first: number | undefined;
  let last: number | undefined;
  for (const item of items) {
    const t = instantMs(item.created_at);
    if (t === undefined) continue;
    if (first === undefined || t < first) first = t;
    if (last === undefined || t > last) last = t;
  }
  return { first, last };
}

/**
 * The summary fields, each as given, else derived from the report: `messageCount` counts the `message` items;
 * `startedAt` is the report's `started_at`, else the first item's time; `endedAt` the report's `timestamp`, else the
 * last item's time; either one may also come from the other and the duration; `durationMs` is the report's
 * `duration` (seconds), else `endedAt - startedAt`. With nothing to go by the call ends at `now`.
 */
export function deriveFields(input: TranscriptInput, items: ChatItem[], now: Date): DerivedFields {
  const report = input.sessionReport ?? {};
  const span = itemSpan(items);
  const reportDuration = typeof report.duration === 'number' ? valid(Math.round(report.duration * 1000)) : undefined;
  const duration =
    input.durationMs ?? (reportDuration !== undefined && reportDuration >= 0 ? reportDuration : undefined);
  const s0 = instantMs(input.startedAt) ?? instantMs(report.started_at) ?? span.first;
  const e0 = instantMs(input.endedAt) ?? instantMs(report.timestamp) ?? span.last;
  let start = s0 ?? (e0 !== undefined && duration !== undefined ? valid(e0 - duration) : undefined);
  let end =
    e0 ?? (start !== undefined && duration !== undefined ? valid(start + duration) : undefined) ?? now.getTime();
  start ??= end;
  if (end < start) end = start;
  return {
    roomName: input.roomName ?? (typeof report.room === 'string' ? report.room : ''),
    closeReason: input.closeReason ?? closeReasonOf(report) ?? 'unknown',
    durationMs: duration ?? end - start,
    messageCount: input.messageCount ?? items.filter((i) => i.type === 'message').length,
    startedAt: new Date(start),
    endedAt: new Date(end),
  };
}

/** JSON with object keys sorted at every level, so that equal values give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What identifies an ingest body: a replay has the same fingerprint, a conflicting one another. */
export function fingerprintOf(input: TranscriptInput): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}
