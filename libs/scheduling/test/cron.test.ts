import fc from 'fast-check';

import { computeNextFire, cronError, firesBetween, nextFire } from '../src/cron';
import { isValidTimeZone, wallOf } from '../src/zoned-time';

const at = (iso: string) => new Date(iso).getTime();
const isoOf = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const fires = (expr: string, tz: string, from: string, to: string) =>
  firesBetween(expr, tz, at(from), at(to)).map(isoOf);

describe('cron validation', () => {
  it.each([
    '* * * * *',
    '*/15 * * * *',
    '0 9 * * MON-FRI',
    '0 0 1 JAN,jul *',
    '5,10-20/5 1-3 */2 1-12 0-7',
    '0 12 * DEC sun',
    '30 2 15 * *',
  ])('accepts %s', (expr) => {
    expect(cronError(expr)).toBeNull();
  });

  it.each([
    ['61 * * * *', /minute|59/],
    ['* 24 * * *', /24|23/],
    ['* * 0 * *', /0|1-31/],
    ['* * * 13 *', /13|12/],
    ['* * * * 8', /8|7/],
    ['* * * *', /5 fields/],
    ['0 * * * * *', /5 fields/],
    ['', /5 fields.*got 0/],
    ['0 0 L * *', /day of month/],
    ['0 0 * * 1#2', /day of week/],
    ['H * * * *', /minute/],
    ['@daily', /5 fields/],
    ['5-1 * * * *', /range/i],
    ['*/0 * * * *', /0/],
    ['1,,2 * * * *', /minute/],
    ['0 0 30 2 *', /day of month/i],
    ['0 0 * FOO *', /month/],
  ])('refuses %s', (expr, why) => {
    expect(cronError(expr)).toMatch(why);
  });

  it('refuses what is not a string', () => {
    expect(cronError(5)).toBe('must be a string');
  });
});

describe('time zones', () => {
  it.each([
    'UTC',
    'Europe/Berlin',
    'Asia/Calcutta',
    'Asia/Kolkata',
    'US/Eastern',
    'America/Argentina/Buenos_Aires',
    'Etc/GMT+5',
  ])('knows %s', (tz) => expect(isValidTimeZone(tz)).toBe(true));
  it.each(['Mars/Olympus', '', 'Europe/', 'x'.repeat(65)])('does not know %j', (tz) =>
    expect(isValidTimeZone(tz)).toBe(false),
  );
  it('treats an alias like its zone', () => {
    expect(nextFire('0 9 * * *', 'Asia/Calcutta', at('2026-11-22T00:00:00Z'))).toBe(
      nextFire('0 9 * * *', 'Asia/Kolkata', at('2026-11-22T00:00:00Z')),
    );
    expect(isoOf(nextFire('0 9 * * *', 'Asia/Calcutta', at('2026-11-22T00:00:00Z')))).toBe('2026-11-22T03:30:00.000Z');
  });
});

describe('next fire', () => {
  it('is strictly after the given instant, on minute boundaries', () => {
    expect(isoOf(nextFire('* * * * *', 'UTC', at('2026-11-22T10:00:00Z')))).toBe('2026-11-22T10:01:00.000Z');
    expect(isoOf(nextFire('* * * * *', 'UTC', at('2026-11-22T10:00:00.500Z')))).toBe('2026-11-22T10:01:00.000Z');
    expect(isoOf(nextFire('*/15 * * * *', 'UTC', at('2026-11-22T10:07:13Z')))).toBe('2026-11-22T10:15:00.000Z');
  });

  it('reads steps, ranges, lists and names in the schedule zone', () => {
    expect(fires('0 9 * * MON-FRI', 'Europe/Berlin', '2026-11-20T00:00:00Z', '2026-11-25T00:00:00Z')).toEqual([
      '2026-11-20T08:00:00.000Z', // Friday 09:00 CET
      '2026-11-23T08:00:00.000Z', // Monday
      '2026-11-24T08:00:00.000Z',
    ]);
    expect(fires('0 0 1 jan,JUL *', 'UTC', '2026-01-01T00:00:00Z', '2027-12-31T00:00:00Z')).toEqual([
      '2026-07-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
      '2027-07-01T00:00:00.000Z',
    ]);
  });

  it('uses either day field when both are restricted (standard cron)', () => {
    // The 13th of the month, or any Friday.
    expect(fires('0 0 13 * FRI', 'UTC', '2026-11-01T00:00:00Z', '2026-11-21T00:00:00Z')).toEqual([
      '2026-11-06T00:00:00.000Z',
      '2026-11-13T00:00:00.000Z',
      '2026-11-20T00:00:00.000Z',
    ]);
  });

  it('fires on 29 February only in leap years', () => {
    expect(isoOf(nextFire('0 0 29 2 *', 'UTC', at('2026-11-22T00:00:00Z')))).toBe('2028-02-29T00:00:00.000Z');
  });
});

describe('daylight saving (America/New_York)', () => {
  // 2027-03-14: 02:00 EST jumps to 03:00 EDT (07:00Z). 2027-11-07: 02:00 EDT falls back to 01:00 EST (06:00Z).
  it('a fire inside the spring-forward gap runs once, at the first instant after the gap', () => {
    expect(fires('30 2 * * *', 'America/New_York', '2027-03-13T00:00:00Z', '2027-03-16T00:00:00Z')).toEqual([
      '2027-03-13T07:30:00.000Z', // 02:30 EST
      '2027-03-14T07:00:00.000Z', // 02:30 does not exist: 03:00 EDT
      '2027-03-15T06:30:00.000Z', // 02:30 EDT
    ]);
  });

  it('fires every quarter hour across the gap without a burst: the skipped hour becomes one fire', () => {
    expect(fires('*/15 * * * *', 'America/New_York', '2027-03-14T06:30:00Z', '2027-03-14T07:30:00Z')).toEqual([
      '2027-03-14T06:45:00.000Z', // 01:45 EST
      '2027-03-14T07:00:00.000Z', // 02:00..02:45 do not exist; 03:00 EDT once
      '2027-03-14T07:15:00.000Z', // 03:15 EDT
      '2027-03-14T07:30:00.000Z',
    ]);
  });

  it('a fire inside the repeated fall-back hour runs once, on the first pass', () => {
    expect(fires('30 1 * * *', 'America/New_York', '2027-11-06T00:00:00Z', '2027-11-09T00:00:00Z')).toEqual([
      '2027-11-06T05:30:00.000Z', // 01:30 EDT
      '2027-11-07T05:30:00.000Z', // 01:30 EDT, first pass; not again at 01:30 EST (06:30Z)
      '2027-11-08T06:30:00.000Z', // 01:30 EST
    ]);
  });

  it('does not repeat the wall times of the repeated hour, even when asked from inside its second pass', () => {
    const quarter = fires('*/15 * * * *', 'America/New_York', '2027-11-07T05:30:00Z', '2027-11-07T07:30:00Z');
    expect(quarter).toEqual([
      '2027-11-07T05:45:00.000Z', // 01:45 EDT
      '2027-11-07T07:00:00.000Z', // 02:00 EST: 01:00..01:45 EST were fired at 01:00..01:45 EDT
      '2027-11-07T07:15:00.000Z',
      '2027-11-07T07:30:00.000Z',
    ]);
    // A worker that picks the 01:45 EDT job up late, in the second pass (01:10 EST), still goes on at 02:00 EST.
    expect(isoOf(nextFire('*/15 * * * *', 'America/New_York', at('2027-11-07T06:10:00Z')))).toBe(
      '2027-11-07T07:00:00.000Z',
    );
  });

  it('follows a southern-hemisphere and a half-hour zone too', () => {
    // Australia/Lord_Howe moves by 30 minutes: 2027-04-04 02:00 LHDT → 01:30 LHST (repeated 01:30-02:00).
    expect(fires('45 1 * * *', 'Australia/Lord_Howe', '2027-04-03T00:00:00Z', '2027-04-05T00:00:00Z')).toHaveLength(2);
    // Europe/London: 2027-03-28 01:00 GMT → 02:00 BST.
    expect(fires('30 1 28 3 *', 'Europe/London', '2027-03-01T00:00:00Z', '2027-04-01T00:00:00Z')).toEqual([
      '2027-03-28T01:00:00.000Z',
    ]);
  });
});

describe('properties', () => {
  const zones = fc.constantFrom(
    'UTC',
    'America/New_York',
    'Europe/Berlin',
    'Australia/Lord_Howe',
    'Asia/Kolkata',
    'America/Santiago',
  );
  const exprs = fc.constantFrom(
    '* * * * *',
    '*/7 * * * *',
    '30 2 * * *',
    '0 1 * * *',
    '15 1-3 * * 0',
    '0 0 1 * *',
    '45 23 * * FRI',
  );
  const instants = fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2029-01-01T00:00:00Z') });

  it('fires are strictly increasing, land on whole minutes, and every wall-clock time fires at most once', () => {
    fc.assert(
      fc.property(exprs, zones, instants, (expr, tz, from) => {
        const list = firesBetween(expr, tz, from, from + 3 * 86400_000, 300);
        const walls = list.map((t) => wallOf(t, tz));
        for (let i = 0; i < list.length; i++) {
          expect((list[i] as number) % 60_000).toBe(0);
          if (i > 0) expect(list[i] as number).toBeGreaterThan(list[i - 1] as number);
        }
        expect(new Set(walls).size).toBe(walls.length);
      }),
      { numRuns: 80 },
    );
  });

  it('asking again from any fire gives the next one (what each replica computes agrees)', () => {
    fc.assert(
      fc.property(exprs, zones, instants, (expr, tz, from) => {
        const list = firesBetween(expr, tz, from, from + 2 * 86400_000, 50);
        for (let i = 1; i < list.length; i++) expect(nextFire(expr, tz, list[i - 1] as number)).toBe(list[i]);
      }),
      { numRuns: 60 },
    );
  });
});

test('remembered next-fire answers equal fresh ones, whatever order the questions come in (DST zones included)', () => {
  const exprs = ['* * * * *', '*/5 * * * *', '30 2 * * *', '0 1 * * 0', '15 9 1 * *'];
  const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe'];
  const base = Date.UTC(2027, 2, 13); // a few days that include spring changes of the northern zones
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.constantFrom(...exprs), fc.constantFrom(...zones), fc.integer({ min: 0, max: 40 * 86_400_000 })),
        { minLength: 1, maxLength: 60 },
      ),
      (questions) => {
        for (const [expr, tz, offset] of questions) {
          const at = base + offset;
          expect(nextFire(expr, tz, at)).toBe(computeNextFire(expr, tz, at));
          // Neighbours of a known answer, answered from the remembered interval.
          const next = nextFire(expr, tz, at)!;
          expect(nextFire(expr, tz, next - 1)).toBe(computeNextFire(expr, tz, next - 1));
          expect(nextFire(expr, tz, next)).toBe(computeNextFire(expr, tz, next));
        }
      },
    ),
    { numRuns: 200 },
  );
});
