import type { ExecutionRecord } from '@platform/scheduling';
import { captureLogger } from '@platform/testing';

import { createDirectRuns } from '../src/runs/direct-runs';

const exec = (id: string) => ({ id }) as ExecutionRecord;

describe('runs made at once by their fire', () => {
  it('holds at most `limit` in flight; a place released unused or a run ended frees one', async () => {
    const ends: (() => void)[] = [];
    const { logger } = captureLogger('worker');
    const runs = createDirectRuns(() => new Promise<void>((r) => ends.push(r)), 2, logger);
    const a = runs.reserve()!;
    const b = runs.reserve()!;
    expect(runs.reserve()).toBeNull();
    b.release();
    b.release(); // twice is once
    const c = runs.reserve()!;
    expect(runs.reserve()).toBeNull();
    a.start(exec('a'));
    a.release(); // a started place is not freed by a release
    c.start(exec('c'));
    expect(ends).toHaveLength(2);
    expect(runs.reserve()).toBeNull();
    ends[0]!();
    await new Promise((r) => setImmediate(r));
    expect(runs.reserve()).not.toBeNull();
  });

  it('settles once every run in flight has ended; a run that throws is logged, not thrown', async () => {
    const { logger, lines } = captureLogger('worker');
    let finish!: () => void;
    const runs = createDirectRuns(
      (e) => (e.id === 'bad' ? Promise.reject(new Error('boom')) : new Promise<void>((r) => (finish = r))),
      4,
      logger,
    );
    runs.reserve()!.start(exec('good'));
    runs.reserve()!.start(exec('bad'));
    let settled = false;
    const settling = runs.settle().then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    finish();
    await settling;
    expect(lines.some((l) => l.includes('run made by its fire stopped') && l.includes('bad'))).toBe(true);
  });

  it('with a limit of 0 every run goes through its queue', () => {
    const runs = createDirectRuns(() => Promise.resolve(), 0, captureLogger('worker').logger);
    expect(runs.reserve()).toBeNull();
  });
});
