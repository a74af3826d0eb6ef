import type { TrainedPage } from '../src/graph/graph.types';
import { createPageWriter, MAX_BATCH_PAGES, MAX_BATCHES_IN_FLIGHT, MAX_PENDING_PAGES } from '../src/graph/page-writer';

const page = (i: number): TrainedPage => ({
  url: `https://x/${i}`,
  title: '',
  chunks: [],
  entities: [],
  relations: [],
});

describe('page writer', () => {
  it('writes pages in batches while more arrive, in order, and reports each batch once stored', async () => {
    expect(MAX_BATCHES_IN_FLIGHT).toBe(1);
    const batches: string[][] = [];
    const reported: number[] = [];
    const releases: (() => void)[] = [];
    const w = createPageWriter({
      write: async (pages) => {
        batches.push(pages.map((p) => p.url));
        await new Promise<void>((r) => releases.push(r));
      },
      onWritten: (pages) => (reported.push(pages.length), Promise.resolve()),
    });
    await w.write(page(0)); // a batch starts at once, with one page
    for (let i = 1; i < 10; i++) await w.write(page(i)); // these wait for it to end
    expect(batches).toEqual([['https://x/0']]);
    releases.shift()!();
    const closing = w.close();
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 0));
      while (releases.length > 0) releases.shift()!();
    }
    await closing;
    expect(batches).toEqual([['https://x/0'], Array.from({ length: 9 }, (_, i) => `https://x/${i + 1}`)]);
    expect(reported).toEqual([1, 9]);
  });

  it(`never lets more than ${MAX_PENDING_PAGES} pages wait, and writes at most ${MAX_BATCH_PAGES} at once`, async () => {
    let inFlight = 0;
    let maxPending = 0;
    const sizes: number[] = [];
    let pendingNow = 0;
    const w = createPageWriter({
      write: async (pages) => {
        inFlight++;
        sizes.push(pages.length);
        pendingNow -= pages.length;
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
      },
      onWritten: () => Promise.resolve(),
    });
    for (let i = 0; i < 500; i++) {
      pendingNow++;
      maxPending = Math.max(maxPending, pendingNow);
      await w.write(page(i));
    }
    await w.close();
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(500);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_BATCH_PAGES);
    expect(maxPending).toBeLessThanOrEqual(MAX_PENDING_PAGES + MAX_BATCH_PAGES);
    expect(inFlight).toBe(0);
  });

  it('a failed write fails the pages after it and the close; nothing after it is reported stored', async () => {
    const reported: string[] = [];
    let calls = 0;
    const w = createPageWriter({
      write: (pages) => (++calls === 2 ? Promise.reject(new Error('database away')) : Promise.resolve(void pages)),
      onWritten: (pages) => (reported.push(...pages.map((p) => p.url)), Promise.resolve()),
    });
    await w.write(page(0));
    await w.write(page(1));
    await expect(w.close()).rejects.toThrow('database away');
    await expect(w.write(page(2))).rejects.toThrow('database away');
    expect(reported).toEqual(['https://x/0']);
  });
});
