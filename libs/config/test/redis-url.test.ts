import { Joi, loadConfig, MAX_REDIS_NODES, parseRedisUrl, redisUrlSchema } from '@platform/config';

describe('parseRedisUrl', () => {
  test('one node, as ioredis reads it', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
    expect(parseRedisUrl('rediss://:pw@cache.internal:6380/2')).toEqual({
      kind: 'single',
      url: 'rediss://:pw@cache.internal:6380/2',
    });
  });

  test('a cluster: seed nodes, credentials, TLS, default port', () => {
    expect(parseRedisUrl('redis+cluster://a:7000,b:7001,c')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
        { host: 'c', port: 6379 },
      ],
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@[::1]:7000/')).toEqual({
      kind: 'cluster',
      nodes: [{ host: '::1', port: 7000 }],
      tls: true,
      username: 'app',
      password: 'p@ss',
    });
  });

  test('sentinel: sentinels, master name, database', () => {
    expect(parseRedisUrl('redis+sentinel://:pw@s1,s2:26380/mymaster/3')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      name: 'mymaster',
      db: 3,
      tls: false,
      password: 'pw',
    });
  });

  test.each([
    ['http://x:6379', /must start with/],
    ['redis+cluster://', /names no node|is not host/],
    ['redis+cluster://a:99999', /out of range/],
    ['redis+cluster://a:7000/4', /names no database/],
    ['redis+cluster://a b:7000', /is not host/],
    ['redis+sentinel://s1:26379', /master name/],
    ['redis+sentinel://s1:26379/m/16', /database/],
    [`redis+cluster://${Array.from({ length: MAX_REDIS_NODES + 1 }, (_, i) => `n${i}`).join(',')}`, /more than/],
  ])('%s is refused', (url, problem) => {
    expect(() => parseRedisUrl(url)).toThrow(problem);
  });
});

test('a config variable with redisUrlSchema names the problem', () => {
  const schema = Joi.object<{ REDIS_URL: string }>({ REDIS_URL: redisUrlSchema().required().description('Redis') });
  expect(loadConfig(schema, { REDIS_URL: 'redis+cluster://a:1,b:2' }).REDIS_URL).toBe('redis+cluster://a:1,b:2');
  expect(() => loadConfig(schema, { REDIS_URL: 'redis+sentinel://s1' })).toThrow(/REDIS_URL: .*master name/);
});
