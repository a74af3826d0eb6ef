/**
 * Instants for tests, derived from the real now, so that a test reads the same on any day it runs. Clocks that the
 * test cannot move (BullMQ's, Redis's) keep running on real time; a test that moves the application's clock moves it
 * to one of these instants, which are always ahead of the real now.
 */

const DAY_MS = 86_400_000;

/**
 * `at("10:07")` (or `"10:07:30"`) is that UTC time of day on the day `daysAhead` days after today (UTC), so at least
 * `daysAhead - 1` days in the future.
 */
export function utcDayAhead(daysAhead = 1, now = Date.now()): (time: string) => Date {
  const midnight = Math.floor(now / DAY_MS) * DAY_MS + daysAhead * DAY_MS;
  return (time: string) => {
    const [h = 0, m = 0, s = 0] = time.split(':').map(Number);
    return new Date(midnight + ((h * 60 + m) * 60 + s) * 1000);
  };
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at `ms`, in minutes, read from Intl (independently of the code under test). */
export function zoneOffsetMinutes(ms: number, tz: string): number {
  let format = offsetFormats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    offsetFormats.set(tz, format);
  }
  const name = format.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name ?? '');
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/**
 * The next daylight-saving change of `tz` of the given direction (`forward`: clocks jump ahead, a local hour is
 * skipped; `back`: a local hour repeats) at least `minAheadMs` after `now`: the first instant with the new offset.
 */
export function nextDstChange(
  tz: string,
  direction: 'forward' | 'back',
  minAheadMs = 2 * DAY_MS,
  now = Date.now(),
): Date {
  const HOUR = 3_600_000;
  let t = Math.ceil((now + minAheadMs) / HOUR) * HOUR;
  let offset = zoneOffsetMinutes(t, tz);
  for (let i = 0; i < 2 * 366 * 24; i++, t += HOUR) {
    const next = zoneOffsetMinutes(t + HOUR, tz);
    if (next !== offset && next > offset === (direction === 'forward')) {
      let lo = t;
      let hi = t + HOUR;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (zoneOffsetMinutes(mid, tz) === offset) lo = mid;
        else hi = mid;
      }
      return new Date(hi);
    }
    offset = next;
  }
  throw new Error(`${tz} has no ${direction} daylight-saving change within two years`);
}

/** The wall-clock time of day `HH:MM` in `tz` at `ms` (for assertions that a derived instant is what it claims). */
export function wallTimeIn(ms: number, tz: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: tz,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(ms));
}
