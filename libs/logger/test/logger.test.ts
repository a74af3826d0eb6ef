import { Writable } from 'node:stream';

import { createLogger, currentRequestId, redact, withLogContext, type Logger } from '@platform/logger';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function fakeKey(seed: number): string {
  let body = '';
  for (let i = 0; i < 40; i++) body += BASE62[(seed * 7 + i * 13) % 62];
  return `sk_${body}`;
}

function capture(opts: { level?: string; service?: string } = {}): {
  logger: Logger;
  raw: string[];
  lines: () => Record<string, unknown>[];
} {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = createLogger({ service: opts.service ?? 'logger-test', level: opts.level ?? 'debug', stream });
  const lines = () =>
    raw
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, raw, lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('createLogger', () => {
  test('writes one JSON object per line with level, message, service and an ISO timestamp', async () => {
    const { logger, raw, lines } = capture();
    logger.info('hello', { a: 1 });
    logger.warn('second');
    await flush();
    const text = raw.join('');
    expect(text.endsWith('\n')).toBe(true);
    const split = text.split('\n').filter(Boolean);
    expect(split).toHaveLength(2);
    for (const l of split) expect(() => JSON.parse(l) as unknown).not.toThrow();
    const [first, second] = lines();
    expect(first).toMatchObject({ level: 'info', message: 'hello', a: 1, service: 'logger-test' });
    expect(new Date(first!.timestamp as string).toISOString()).toBe(first!.timestamp);
    expect(second).toMatchObject({ level: 'warn', message: 'second' });
  });

  test('respects the level', async () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.debug('d');
    logger.info('i');
    logger.http('h');
    logger.warn('w');
    logger.error('e');
    await flush();
    expect(lines().map((l) => l.message)).toEqual(['w', 'e']);
  });

  test('a line below the level is dropped before it is formatted (its fields are never walked)', async () => {
    const { logger, lines } = capture({ level: 'info' });
    let reads = 0;
    // A nested getter: building the line copies `detail` as it is; formatting it (redaction) reads inside.
    const meta = {
      detail: {
        get inner() {
          reads += 1;
          return 'x';
        },
      },
    };
    logger.debug('dropped', meta);
    logger.child({ module: 'm' }).debug('dropped too', meta);
    logger.log('debug', 'and this', meta);
    await flush();
    expect(reads).toBe(0);
    logger.info('kept', meta);
    await flush();
    expect(reads).toBeGreaterThan(0);
    expect(lines().map((l) => l.message)).toEqual(['kept']);
  });

  test('silent writes nothing', async () => {
    const raw: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _e, cb) {
        raw.push(chunk.toString());
        cb();
      },
    });
    const logger = createLogger({ service: 's', stream, silent: true });
    logger.error('nothing');
    await flush();
    expect(raw).toEqual([]);
  });

  redactsSecrets();
  keepsOrdinaryValues();
  carriesRequestContext();
  writesLinesJsonCannot();
  childLoggersKeepTheirFields();
});

/** Secret fields by name, at any depth, and key-shaped values in any string, Error messages and stacks. */
function redactsSecrets(): void {
  test.each([
    'api_key',
    'secret_key',
    'password',
    'authorization',
    'credentials',
    'apiKey',
    'x-api-key',
    'Authorization',
    'access_token',
    'cookie',
  ])('a field named %s is redacted', async (field) => {
    const { logger, raw, lines } = capture();
    const value = `the-value-of-${field}-7f3a9c`;
    logger.info('with secret', { [field]: value });
    await flush();
    expect(raw.join('')).not.toContain(value);
    expect(lines()[0]![field]).toBe('[REDACTED]');
  });

  test('secret fields nested in objects and arrays are redacted; siblings are kept', async () => {
    const { logger, raw, lines } = capture();
    logger.info('nested', {
      request: { headers: { authorization: 'Bearer abc.def.ghi', 'content-type': 'application/json' } },
      provider: { name: 'openai', credentials: { api_key: 'plain-key-123', base_url: 'https://x' } },
      list: [{ password: 'hunter2', user: 'bob' }],
    });
    await flush();
    const text = raw.join('');
    for (const s of ['abc.def.ghi', 'plain-key-123', 'hunter2']) expect(text).not.toContain(s);
    const line = lines()[0]!;
    expect(line.request).toEqual({ headers: { authorization: '[REDACTED]', 'content-type': 'application/json' } });
    expect(line.provider).toEqual({ name: 'openai', credentials: '[REDACTED]' });
    expect(line.list).toEqual([{ password: '[REDACTED]', user: 'bob' }]);
  });

  test('a key-shaped value (sk_ + 40 base62) inside a message or any string is redacted', async () => {
    const key = fakeKey(1);
    expect(key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    const other = fakeKey(2);
    const { logger, raw, lines } = capture();
    logger.info(`calling provider with ${key} now`);
    logger.info('meta', { note: `retry using key=${other}.`, ok: 'no secrets here' });
    await flush();
    const text = raw.join('');
    expect(text).not.toContain(key);
    expect(text).not.toContain(other);
    expect(text).not.toContain(key.slice(3));
    const [first, second] = lines();
    expect(first!.message).toBe('calling provider with [REDACTED] now');
    expect(second!.note).toBe('retry using key=[REDACTED].');
    expect(second!.ok).toBe('no secrets here');
  });

  test('webhook secrets (whsec_…) in strings are redacted', async () => {
    const { logger, raw } = capture();
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    logger.info(`new secret ${secret}`);
    await flush();
    expect(raw.join('')).not.toContain(secret);
    expect(raw.join('')).not.toContain(secret.slice(6));
  });

  test('a key inside an Error message or stack is redacted', async () => {
    const key = fakeKey(3);
    const { logger, raw } = capture();
    logger.error('call failed', { err: new Error(`401 from provider for ${key}`) });
    await flush();
    const text = raw.join('');
    expect(text).not.toContain(key);
    expect(text).toContain('401 from provider for [REDACTED]');
  });

  test('an Error logged directly keeps its message and stack, with keys redacted', async () => {
    const key = fakeKey(4);
    const { logger, raw, lines } = capture();
    logger.error(new Error(`boom with ${key}`));
    await flush();
    expect(raw.join('')).not.toContain(key);
    const line = lines()[0]!;
    expect(line.level).toBe('error');
    expect(line.message).toBe('boom with [REDACTED]');
    expect(String(line.stack)).toContain('boom with [REDACTED]');
  });
}

/** Numbers and ordinary strings and ids, even with a secret-sounding name, are written as they are. */
function keepsOrdinaryValues(): void {
  test('numeric fields such as prompt_tokens are kept, even when their name mentions a secret word', async () => {
    const { logger, lines } = capture();
    logger.info('usage', {
      prompt_tokens: 12,
      completion_tokens: 34,
      total_tokens: 46,
      max_tokens: 1000,
      status: 200,
      ok: true,
    });
    await flush();
    expect(lines()[0]).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 34,
      total_tokens: 46,
      max_tokens: 1000,
      status: 200,
      ok: true,
    });
  });

  test('ordinary strings and ids are not touched', async () => {
    const { logger, lines } = capture();
    logger.info('ordinary', {
      user_id: 'u_123',
      agent_id: 42,
      path: '/v3/agents/42',
      skip: 'task_done',
      risky: 'ask_me',
    });
    await flush();
    expect(lines()[0]).toMatchObject({
      user_id: 'u_123',
      agent_id: 42,
      path: '/v3/agents/42',
      skip: 'task_done',
      risky: 'ask_me',
    });
  });
}

/** withLogContext: the request id on every line of its request, through awaits, nested and concurrent. */
function carriesRequestContext(): void {
  test('withLogContext puts requestId on every line, through awaits, and nests', async () => {
    const { logger, lines } = capture();
    expect(currentRequestId()).toBeUndefined();
    await withLogContext({ requestId: 'req-1' }, async () => {
      expect(currentRequestId()).toBe('req-1');
      logger.info('before await');
      await new Promise((r) => setTimeout(r, 5));
      logger.info('after await');
      await withLogContext({ tenant: 'org-9' }, async () => {
        logger.info('nested');
      });
    });
    logger.info('outside');
    await withLogContext({ requestId: 'req-2' }, async () => {
      logger.info('other request');
    });
    await flush();
    const byMsg = Object.fromEntries(lines().map((l) => [l.message, l]));
    expect(byMsg['before await']!.requestId).toBe('req-1');
    expect(byMsg['after await']!.requestId).toBe('req-1');
    expect(byMsg.nested).toMatchObject({ requestId: 'req-1', tenant: 'org-9' });
    expect(byMsg.outside!.requestId).toBeUndefined();
    expect(byMsg['other request']!.requestId).toBe('req-2');
  });

  test('concurrent contexts do not leak into each other', async () => {
    const { logger, lines } = capture();
    await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        withLogContext({ requestId: `r${i}` }, async () => {
          await new Promise((r) => setTimeout(r, (5 - i) * 3));
          logger.info(`m${i}`);
        }),
      ),
    );
    await flush();
    for (const l of lines()) expect(l.requestId).toBe(`r${String(l.message).slice(1)}`);
    expect(lines()).toHaveLength(5);
  });
}

/** A value JSON.stringify refuses does not lose the line. */
function writesLinesJsonCannot(): void {
  test('a line JSON cannot write (a cycle, a BigInt) is still written, once, with its other fields', async () => {
    const { logger, lines } = capture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    let at = cyclic;
    for (let i = 0; i < 12; i++) at = (at.next = { i }) as Record<string, unknown>;
    at.back = cyclic;
    logger.info('cyclic', { cyclic, n: 1 });
    logger.info('big', { big: 10n ** 20n });
    logger.info('plain');
    await flush();
    const got = lines();
    expect(got.map((l) => l.message).sort()).toEqual(['big', 'cyclic', 'plain']);
    expect(got.find((l) => l.message === 'cyclic')).toMatchObject({ n: 1, service: 'logger-test' });
    expect(String(got.find((l) => l.message === 'big')?.big)).toBe('100000000000000000000');
  });
}

/** Child loggers: their fields on every line (the parent service too), and still redacted. */
function childLoggersKeepTheirFields(): void {
  test('child loggers keep their module field (and the parent service) on every line', async () => {
    const { logger, lines } = capture();
    const child = logger.child({ module: 'scheduler' });
    const grandchild = child.child({ job: 'tick' });
    child.info('from child');
    grandchild.warn('from grandchild');
    await withLogContext({ requestId: 'req-child' }, async () => {
      child.info('child in request');
    });
    logger.info('from parent');
    await flush();
    const byMsg = Object.fromEntries(lines().map((l) => [l.message, l]));
    expect(byMsg['from child']).toMatchObject({ module: 'scheduler', service: 'logger-test' });
    expect(byMsg['from grandchild']).toMatchObject({
      module: 'scheduler',
      job: 'tick',
      service: 'logger-test',
      level: 'warn',
    });
    expect(byMsg['child in request']).toMatchObject({ module: 'scheduler', requestId: 'req-child' });
    expect(byMsg['from parent']!.module).toBeUndefined();
  });

  test('child logger fields that look secret are still redacted', async () => {
    const { logger, raw } = capture();
    logger.child({ module: 'x', api_key: 'child-secret-value' }).info('hi');
    await flush();
    expect(raw.join('')).not.toContain('child-secret-value');
  });
}

describe('redact()', () => {
  test('leaves numbers, booleans and null alone and does not mutate its input', () => {
    const input = { password: 'p', n: 1, b: false, z: null, nested: { token: 'abc' } };
    const out = redact(input);
    expect(out).toEqual({ password: '[REDACTED]', n: 1, b: false, z: null, nested: { token: '[REDACTED]' } });
    expect(input.password).toBe('p');
    expect(input.nested.token).toBe('abc');
  });

  test('handles very deep objects without throwing', () => {
    let deep: Record<string, unknown> = { v: 'leaf' };
    for (let i = 0; i < 50; i++) deep = { d: deep };
    expect(() => redact(deep)).not.toThrow();
  });
});
