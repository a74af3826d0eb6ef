import { CronExpressionParser, type CronExpression } from 'cron-parser';

import { endOfGap, instantsOfWall, transitionBetween, wallOf } from './zoned-time';

/**
 * Five-field cron (minute hour day-of-month month day-of-week) in a time zone, with the API's daylight-saving
 * rules: a wall time skipped by a gap fires once, at the first instant after the gap; a wall time repeated by a
 * fall-back fires once, on its first pass. Matching is done on wall-clock values by cron-parser (in UTC, where no
 * clock jumps); mapping a match to a real instant is ours (zoned-time).
 */

const NUM = '\\d{1,2}';
const MONTHS = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec';
const DAYS = 'sun|mon|tue|wed|thu|fri|sat';
const FIELDS = [
  { name: 'minute', value: NUM },
  { name: 'hour', value: NUM },
  { name: 'day of month', value: NUM },
  { name: 'month', value: `(?:${NUM}|${MONTHS})` },
  { name: 'day of week', value: `(?:${NUM}|${DAYS})` },
].map((f) => {
  const item = `(?:\\*|${f.value}(?:-${f.value})?)(?:/\\d{1,2})?`;
  return { name: f.name, re: new RegExp(`^${item}(?:,${item})*$`, 'i') };
});

const parsed = new Map<string, CronExpression>();

/** Why `expr` is not a valid five-field cron expression, or null when it is. */
export function cronError(expr: unknown): string | null {
  if (typeof expr !== 'string') return 'must be a string';
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5)
    return `must have 5 fields (minute hour day-of-month month day-of-week), got ${fields[0] === '' ? 0 : fields.length}`;
  for (const [i, f] of FIELDS.entries()) {
    if (!f.re.test(fields[i] ?? '')) return `invalid ${f.name} field "${fields[i]}"`;
  }
  try {
    const e = CronExpressionParser.parse(fields.join(' '), { tz: 'UTC', currentDate: new Date(Date.UTC(2000, 0, 1)) });
    e.next();
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

function expression(expr: string): CronExpression {
  const key = expr.trim().split(/\s+/).join(' ');
  let e = parsed.get(key);
  if (!e) {
    e = CronExpressionParser.parse(key, { tz: 'UTC' });
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(key, e);
  }
  return e;
}

/** The first wall-clock match strictly after `wall` (both wall values). */
function nextWall(expr: string, wall: number): number {
  const e = expression(expr);
  e.reset(new Date(wall));
  return e.next().getTime();
}

/** Expressions and zones whose last next-fire answer is remembered. */
const REMEMBERED_ANSWERS = 10_000;
const INTERVALS_PER_KEY = 4;
const lastAnswers = new Map<string, { from: number; next: number }[]>();

/**
 * The first fire of `expr` in `tz` strictly after instant `afterMs`, or null when it never fires again.
 * Deterministic: every replica computes the same instant, which is what makes it a job id.
 */
export function nextFire(expr: string, tz: string, afterMs: number): number | null {
  // The last answers per (expression, zone): no fire lies in (from, next), so every instant of [from, next) has the
  // same next fire. Fires that come due together ask the same questions thousands of times a second.
  // A few intervals per key: a fire's own check (just before its time) and the next fire's (just after) alternate.
  const key = `${expr}\n${tz}`;
  let known = lastAnswers.get(key);
  const hit = known?.find((k) => afterMs >= k.from && afterMs < k.next);
  if (hit) return hit.next;
  const next = computeNextFire(expr, tz, afterMs);
  if (next !== null) {
    if (!known) {
      if (lastAnswers.size >= REMEMBERED_ANSWERS) lastAnswers.clear();
      known = [];
      lastAnswers.set(key, known);
    }
    known.unshift({ from: afterMs, next });
    if (known.length > INTERVALS_PER_KEY) known.pop();
  }
  return next;
}

/** `nextFire` without the remembered answers (tests compare the two). */
export function computeNextFire(expr: string, tz: string, afterMs: number): number | null {
  let wall = wallOf(afterMs, tz);
  const passes = instantsOfWall(wall, tz);
  if (passes.length > 1 && afterMs >= (passes[1] ?? 0)) {
    // In the second pass of a repeated hour: its wall times fired on the first pass; resume after the hour.
    const end = transitionBetween(passes[0] ?? afterMs, passes[1] ?? afterMs, tz);
    wall = Math.max(wall, wallOf(end - 1000, tz));
  }
  for (let i = 0; i < 1_000; i++) {
    let match: number;
    try {
      match = nextWall(expr, wall);
    } catch {
      return null;
    }
    const instants = instantsOfWall(match, tz);
    const at = instants.length > 0 ? (instants[0] as number) : endOfGap(match, tz);
    if (at > afterMs) return at;
    wall = match;
  }
  return null;
}

/** Fire times of `expr` in (fromMs, toMs], at most `max` of them, earliest first. */
export function firesBetween(expr: string, tz: string, fromMs: number, toMs: number, max = 1_000): number[] {
  const out: number[] = [];
  let t: number | null = fromMs;
  while (out.length < max && (t = nextFire(expr, tz, t)) !== null && t <= toMs) out.push(t);
  return out;
}
