import { createReadCache, localChangeBus, plainCopy } from '../src';

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

describe('plainCopy', () => {
  it('copies a record deeply, as structuredClone does, sharing nothing with it', () => {
    const record = {
      id: 7,
      name: 'a',
      nested: { list: [1, { deep: 'x' }], none: null, unset: undefined },
      at: new Date('2020-01-02T03:04:05.000Z'),
      bytes: Buffer.from('key'),
      flags: [true, false],
    };
    const copy = plainCopy(record);
    expect(copy).toEqual(structuredClone(record));
    expect(copy.at).toBeInstanceOf(Date);
    copy.nested.list.push(2);
    (copy.nested.list[1] as { deep: string }).deep = 'y';
    copy.at.setTime(0);
    copy.bytes[0] = 0;
    expect(record.nested.list).toEqual([1, { deep: 'x' }]);
    expect(record.at.toISOString()).toBe('2020-01-02T03:04:05.000Z');
    expect(record.bytes.toString()).toBe('key');
    expect(plainCopy('text')).toBe('text');
    expect(plainCopy(null)).toBeNull();
  });

  it('keeps a key named __proto__ a key (JSON may store one)', () => {
    const record = JSON.parse('{"params": {"__proto__": {"polluted": true}, "a": 1}}') as {
      params: Record<string, unknown>;
    };
    const copy = plainCopy(record);
    expect(Object.getPrototypeOf(copy.params)).toBe(Object.prototype);
    expect(Object.keys(copy.params)).toEqual(['__proto__', 'a']);
    expect((copy.params as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
