import { createReadCache, localChangeBus } from '../src';

/** A loader that counts its reads and answers what `store` holds. */
function source(store: Map<string, string>) {
  const reads: string[] = [];
  return {
    reads,
    load: (id: string) => async () => {
      reads.push(id);
      return store.get(id) ?? null;
    },
  };
}

describe('createReadCache', () => {
  it('reads once within the TTL, again after it', async () => {
    let t = 1_000;
    const cache = createReadCache<string>({ ttlMs: 100, max: 10, now: () => t });
    const src = source(new Map([['1', 'one']]));
    expect(await cache.get('1', 'alice', src.load('1'))).toBe('one');
    expect(await cache.get('1', 'alice', src.load('1'))).toBe('one');
    expect(src.reads).toEqual(['1']);
    t += 101;
    expect(await cache.get('1', 'alice', src.load('1'))).toBe('one');
    expect(src.reads).toEqual(['1', '1']);
  });

  it('a TTL of 0 reads every time', async () => {
    const cache = createReadCache<string>({ ttlMs: 0, max: 10, now: () => 5 });
    const src = source(new Map([['1', 'one']]));
    await cache.get('1', '', src.load('1'));
    await cache.get('1', '', src.load('1'));
    expect(src.reads).toEqual(['1', '1']);
  });

  it('a hit is only for the scope it was read for; another scope reads (and its "not found" leaves the entry)', async () => {
    const cache = createReadCache<string>({ ttlMs: 60_000, max: 10 });
    const store = new Map([['1', 'alice-one']]);
    const reads: string[] = [];
    const scoped = (scope: string) => async () => {
      reads.push(scope);
      return scope === 'alice' ? (store.get('1') ?? null) : null;
    };
    expect(await cache.get('1', 'alice', scoped('alice'))).toBe('alice-one');
    expect(await cache.get('1', 'bob', scoped('bob'))).toBeNull();
    expect(await cache.get('1', 'alice', scoped('alice'))).toBe('alice-one');
    expect(reads).toEqual(['alice', 'bob']);
  });

  it('caches no "not found": an object created later is seen at once', async () => {
    const cache = createReadCache<string>({ ttlMs: 60_000, max: 10 });
    const store = new Map<string, string>();
    const src = source(store);
    expect(await cache.get('1', '', src.load('1'))).toBeNull();
    store.set('1', 'one');
    expect(await cache.get('1', '', src.load('1'))).toBe('one');
  });

  it('a write through changed() drops the entry, also when the write fails', async () => {
    const cache = createReadCache<string>({ ttlMs: 60_000, max: 10 });
    const store = new Map([['1', 'one']]);
    const src = source(store);
    await cache.get('1', '', src.load('1'));
    store.set('1', 'two');
    expect(await cache.changed('1', Promise.resolve(true))).toBe(true);
    expect(await cache.get('1', '', src.load('1'))).toBe('two');
    store.set('1', 'three');
    await expect(cache.changed('1', Promise.reject(new Error('timeout after the write was sent')))).rejects.toThrow(
      'timeout',
    );
    expect(await cache.get('1', '', src.load('1'))).toBe('three');
  });

  it('a change message from another replica drops the entry; named caches on one bus hear only their own kind', async () => {
    const bus = localChangeBus();
    const agents = createReadCache<string>({ ttlMs: 60_000, max: 10, bus, name: 'agent' });
    const credentials = createReadCache<string>({ ttlMs: 60_000, max: 10, bus, name: 'credential' });
    const store = new Map([['1', 'v1']]);
    const src = source(store);
    await agents.get('1', '', src.load('1'));
    await credentials.get('1', '', src.load('1'));
    store.set('1', 'v2');
    bus.publish('agent:1'); // as the bus delivers another replica's change
    expect(await agents.get('1', '', src.load('1'))).toBe('v2');
    expect(await credentials.get('1', '', src.load('1'))).toBe('v1');
    expect(src.reads).toEqual(['1', '1', '1']);
  });

  it('a read that raced with a change is returned but not cached', async () => {
    const bus = localChangeBus();
    const cache = createReadCache<string>({ ttlMs: 60_000, max: 10, bus });
    const store = new Map([['1', 'old']]);
    const src = source(store);
    const raced = await cache.get('1', '', async () => {
      const value = store.get('1')!; // read before the change...
      store.set('1', 'new');
      bus.publish('1'); // ...which is announced before the read returns
      return value;
    });
    expect(raced).toBe('old');
    expect(await cache.get('1', '', src.load('1'))).toBe('new');
  });

  it('keeps at most `max` entries, dropping the oldest', async () => {
    const cache = createReadCache<string>({ ttlMs: 60_000, max: 2 });
    const store = new Map([
      ['1', 'one'],
      ['2', 'two'],
      ['3', 'three'],
    ]);
    const src = source(store);
    for (const id of ['1', '2', '3']) await cache.get(id, '', src.load(id));
    src.reads.length = 0;
    for (const id of ['3', '2', '1']) await cache.get(id, '', src.load(id));
    expect(src.reads).toEqual(['1']);
  });
});

describe('createReadCache: reads in flight', () => {
  it('gets that miss together share one read; another scope, and a get after a change, read on their own', async () => {
    const bus = localChangeBus();
    let t = 1_000;
    const cache = createReadCache<string>({ ttlMs: 100, max: 10, bus, now: () => t });
    const store = new Map([['1', 'v1']]);
    const reads: string[] = [];
    const gates: (() => void)[] = [];
    // A read that answers what the store holds when it began, once released.
    const slow = (scope: string) => async () => {
      reads.push(scope);
      const value = store.get('1') ?? null;
      await new Promise<void>((r) => gates.push(r));
      return value;
    };
    const together = [1, 2, 3].map(() => cache.get('1', 'alice', slow('alice')));
    const other = cache.get('1', 'bob', slow('bob'));
    expect(reads).toEqual(['alice', 'bob']);
    for (const open of gates.splice(0)) open();
    expect(await Promise.all(together)).toEqual(['v1', 'v1', 'v1']);
    expect(await other).toBe('v1');

    // Expired under load: one read again. A change announced meanwhile: a later get reads anew and sees it.
    t += 101;
    reads.length = 0;
    const before = cache.get('1', 'alice', slow('alice'));
    const joined = cache.get('1', 'alice', slow('alice'));
    store.set('1', 'v2');
    bus.publish('1');
    const after = cache.get('1', 'alice', slow('alice'));
    expect(reads).toEqual(['alice', 'alice']);
    for (const open of gates.splice(0)) open();
    expect(await Promise.all([before, joined, after])).toEqual(['v1', 'v1', 'v2']);
    // The read that raced with the change was not cached; the one after it was.
    reads.length = 0;
    expect(await cache.get('1', 'alice', slow('alice'))).toBe('v2');
    expect(reads).toEqual([]);
  });

  it('a failed read fails every get that shared it, and is not kept', async () => {
    const cache = createReadCache<string>({ ttlMs: 60_000, max: 10 });
    let fail = true;
    let reads = 0;
    const load = async () => {
      reads++;
      await Promise.resolve();
      if (fail) throw new Error('store away');
      return 'v';
    };
    const gets = [cache.get('1', '', load), cache.get('1', '', load)];
    await expect(Promise.all(gets)).rejects.toThrow('store away');
    expect(reads).toBe(1);
    fail = false;
    expect(await cache.get('1', '', load)).toBe('v');
    expect(reads).toBe(2);
  });
});
