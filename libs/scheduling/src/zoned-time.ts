/**
 * Wall-clock arithmetic in IANA time zones with the platform's Intl data (no extra library). A "wall" value is the
 * local date and time written as if it were UTC, in milliseconds: comparing and stepping wall values is plain
 * arithmetic, and mapping one back to real instants is where daylight saving is decided.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** True for any time zone name the runtime knows, aliases included (`Asia/Calcutta`, `US/Eastern`, `UTC`). */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64) return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `tz` at instant `ms`, to the second. */
export function wallOf(ms: number, tz: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
}

/** The zone's offset from UTC at instant `ms` (wall minus real), in milliseconds. */
export function offsetAt(ms: number, tz: string): number {
  return wallOf(ms, tz) - Math.floor(ms / 1000) * 1000;
}

const DAY_AND_HALF = 36 * 3600_000;

/**
 * The real instants whose wall-clock time in `tz` is `wall`, earliest first: none inside a daylight-saving gap,
 * two inside a repeated hour, one otherwise.
 */
export function instantsOfWall(wall: number, tz: string): number[] {
  const offsets = new Set([offsetAt(wall - DAY_AND_HALF, tz), offsetAt(wall, tz), offsetAt(wall + DAY_AND_HALF, tz)]);
  const found = [...offsets].map((o) => wall - o).filter((t) => wallOf(t, tz) === wall);
  return [...new Set(found)].sort((a, b) => a - b);
}

/** The first instant in (a, b] whose offset differs from the offset at `a` (b when none does), to the second. */
export function transitionBetween(a: number, b: number, tz: string): number {
  const before = offsetAt(a, tz);
  let lo = a;
  let hi = b;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(mid, tz) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Where a wall time that does not exist (a daylight-saving gap) lands: the first instant after the gap. */
export function endOfGap(wall: number, tz: string): number {
  const a = wall - offsetAt(wall + DAY_AND_HALF, tz);
  const b = wall - offsetAt(wall - DAY_AND_HALF, tz);
  return transitionBetween(Math.min(a, b), Math.max(a, b), tz);
}
