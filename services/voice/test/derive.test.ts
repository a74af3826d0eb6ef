import { chatHistoryOf, deriveFields, fingerprintOf, instantMs } from '../src/transcripts/transcript.derive';
import type { ChatItem, TranscriptInput } from '../src/transcripts/transcript.types';

const now = new Date();
const base = { sessionId: '0f8fad5b-d9cb-469f-a165-70867728950e', agentId: 'a' };
const msg = (s: number): ChatItem => ({ type: 'message', role: 'user', content: ['x'], created_at: s });

it('reads epoch seconds and ISO strings; refuses the rest and what a Date cannot hold', () => {
  const ms = now.getTime();
  expect(instantMs(ms / 1000)).toBe(ms);
  expect(instantMs(now.toISOString())).toBe(ms);
  for (const bad of [undefined, null, '', 'soon', {}, Number.NaN, Infinity, 1e20])
    expect(instantMs(bad)).toBeUndefined();
});

it('takes the chat history from the body, else from the report, keeping only typed objects', () => {
  const items = [msg(1)];
  expect(chatHistoryOf({ ...base, chatHistory: items })).toEqual({ items, fromReport: false });
  const report = { chat_history: { items: [msg(1), 5, { no: 'type' }, { type: 3 }, null] } };
  expect(chatHistoryOf({ ...base, sessionReport: report })).toEqual({ items: [msg(1)], fromReport: true });
  expect(chatHistoryOf({ ...base, sessionReport: { chat_history: 'x' } })).toEqual({ items: [], fromReport: true });
});

it('derives the end from the start and the duration, and the start from the end and the duration', () => {
  const start = now.getTime() - 100_000;
  const a = deriveFields({ ...base, startedAt: new Date(start).toISOString(), durationMs: 5000 }, [], now);
  expect([a.startedAt.getTime(), a.endedAt.getTime(), a.durationMs]).toEqual([start, start + 5000, 5000]);
  const b = deriveFields({ ...base, sessionReport: { timestamp: start / 1000, duration: 2.5 } }, [], now);
  expect([b.startedAt.getTime(), b.endedAt.getTime(), b.durationMs]).toEqual([start - 2500, start, 2500]);
});

it('never ends before it starts, and a negative report duration is not used', () => {
  const start = now.getTime() - 100_000;
  const items = [msg((start - 50_000) / 1000)];
  const f = deriveFields({ ...base, sessionReport: { started_at: start / 1000, duration: -3 } }, items, now);
  expect(f.endedAt.getTime()).toBe(start);
  expect(f.durationMs).toBe(0);
});

it('counts only message items', () => {
  const items: ChatItem[] = [
    msg(1),
    { type: 'function_call', call_id: 'c', name: 'n', arguments: '' },
    msg(2),
    { type: 'other' },
  ];
  expect(deriveFields(base, items, now).messageCount).toBe(2);
});

it('fingerprints equal bodies alike whatever their key order, and different ones differently', () => {
  const a: TranscriptInput = { ...base, sessionReport: { x: 1, y: { b: 2, a: [1, { d: 1, c: 2 }] } } };
  const b: TranscriptInput = {
    sessionReport: { y: { a: [1, { c: 2, d: 1 }], b: 2 }, x: 1 },
    agentId: 'a',
    sessionId: base.sessionId,
  };
  expect(fingerprintOf(a)).toBe(fingerprintOf(b));
  expect(fingerprintOf(a)).not.toBe(fingerprintOf({ ...a, agentId: 'b' }));
  expect(fingerprintOf({ ...base, sessionReport: { a: [1, 2] } })).not.toBe(
    fingerprintOf({ ...base, sessionReport: { a: [2, 1] } }),
  );
});
