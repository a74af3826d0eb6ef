import { blockedReason, isAllowed, parseAllowHosts, refusedLiteralHost } from '@platform/outbound';

describe('blockedReason', () => {
  const blocked: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:db8::1', 'reserved'],
  ];
  it.each(blocked)('%s is refused (%s)', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.253.255.255',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('%s is public', (address) => {
    expect(blockedReason(address)).toBeNull();
  });

  it.each(['localhost', '2130706433', '0x7f000001', '127.1', '0177.0.0.1', 'example.com', ''])(
    '%s is not an address, so it is refused rather than guessed at',
    (value) => {
      expect(blockedReason(value)).toBe('not an IP address');
    },
  );
});

describe('allow-list', () => {
  it('parses hosts and host:port pairs, normalising hosts as URLs do', () => {
    expect(parseAllowHosts(' localhost, 127.0.0.1:8080 ,[::1]:9000,LLM.Internal,127.1:81,,')).toEqual([
      { host: 'localhost' },
      { host: '127.0.0.1', port: 8080 },
      { host: '[::1]', port: 9000 },
      { host: 'llm.internal' },
      { host: '127.0.0.1', port: 81 },
    ]);
    expect(parseAllowHosts(undefined)).toEqual([]);
    expect(parseAllowHosts('')).toEqual([]);
  });

  it.each(['http://x', 'a:b:c', 'host:0', 'host:70000', 'us er@host', 'a/b'])('rejects %j', (entry) => {
    expect(() => parseAllowHosts(entry)).toThrow(/OUTBOUND_ALLOW_HOSTS/);
  });

  it('matches a host on any port, a host:port on that port only', () => {
    const allow = parseAllowHosts('localhost,127.0.0.1:8080,[::1]:9000');
    expect(isAllowed(allow, 'localhost', 1234)).toBe(true);
    expect(isAllowed(allow, 'LOCALHOST', 1234)).toBe(true);
    expect(isAllowed(allow, '127.0.0.1', 8080)).toBe(true);
    expect(isAllowed(allow, '127.0.0.1', 8081)).toBe(false);
    expect(isAllowed(allow, '::1', 9000)).toBe(true);
    expect(isAllowed(allow, '[::1]', 9000)).toBe(true);
    expect(isAllowed(allow, '[::1]', 9001)).toBe(false);
    expect(isAllowed(allow, 'localhost.', 1234)).toBe(false);
    expect(isAllowed([], 'localhost', 80)).toBe(false);
  });
});

describe('refusedLiteralHost: a stored URL no call may reach', () => {
  const allow = parseAllowHosts('127.0.0.1:80,[::1]');
  test.each([
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a linkLocal address/],
    ['http://10.1.2.3/hook', /private/],
    ['https://127.0.0.1/x', /loopback/], // port 443: the allow-list names port 80 only
    ['http://127.0.0.1:8080/x', /loopback/],
    ['http://[::ffff:192.168.0.1]/', /private/],
    ['http://0.0.0.0/', /unspecified/],
  ])('%s is refused', (url, reason) => {
    expect(refusedLiteralHost(url, allow)).toMatch(reason);
  });
  test.each([
    'http://127.0.0.1/x', // port 80, named
    'http://[::1]:9000/', // any port of [::1]
    'https://93.184.216.34/', // public
    'http://hooks.internal.test/x', // a host name: judged at every connection
    'not a url',
  ])('%s is not', (url) => {
    expect(refusedLiteralHost(url, allow)).toBeNull();
  });
});
