import { mongoStatement, redisStatement } from '../src/statements';

describe("a command's text on its span", () => {
  it('names the parts of a MongoDB command and the fields of its documents, never a value', () => {
    const text = mongoStatement({
      find: 'executions',
      filter: { agent_id: 'secret-agent', status: { $in: ['queued'] } },
      sort: { created_at: -1, _id: -1 },
      limit: 20,
    });
    expect(text).toBe('find filter{agent_id,status} sort{created_at,_id} limit');
    expect(text).not.toContain('secret');
  });

  it('names at most twelve fields of a part and twelve parts, marking the rest', () => {
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, i]));
    expect(mongoStatement({ insert: 'x', documents: wide } as Record<string, unknown>)).toBe(
      `insert documents{${Array.from({ length: 12 }, (_, i) => `f${i}`).join(',')},…}`,
    );
    expect(mongoStatement(wide).split(' ')).toHaveLength(13);
    // Arrays, dates and ids (class instances) are values: named, not walked.
    class Id {
      constructor(readonly hex: string) {}
    }
    expect(mongoStatement({ _id: new Id('x'), at: new Date(0), tags: ['a'] })).toBe('_id at tags');
  });

  it("names a Redis command and its key, but not a script's hash or any value", () => {
    expect(redisStatement('hget', ['bull:runs:1', 'data'])).toBe('hget bull:runs:1');
    expect(redisStatement('evalsha', ['3f2a…', 2, 'bull:runs:wait', Buffer.from('payload')])).toBe('evalsha');
    expect(redisStatement('set', [Buffer.from('k'), 'v'])).toBe('set');
    expect(redisStatement('get', ['k'.repeat(101)])).toBe('get');
    expect(redisStatement('ping', [])).toBe('ping');
  });
});
