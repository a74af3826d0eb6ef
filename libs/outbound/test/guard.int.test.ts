import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import http from 'node:http';
import type { Socket } from 'node:net';

import {
  createGuardedAgents,
  createOutboundClient,
  OutboundBlockedError,
  OutboundNetworkError,
  parseAllowHosts,
  type OutboundClient,
} from '@platform/outbound';
import { startLocalServer, type LocalServer } from '@platform/testing';

// Every refused target must be refused before a connection exists. The canaries listen on the loopback addresses the
// loopback-shaped targets lead to and must see no connection at all. Non-loopback targets are refused before a socket
// is even created (checked through the `net.client.socket` channel), so the test sends nothing off this machine.
let canary: LocalServer;
let canary6: LocalServer | undefined;
let allowed: LocalServer;
let client: OutboundClient;
const sockets: Socket[] = [];
const onSocket = (msg: unknown) => sockets.push((msg as { socket: Socket }).socket);

beforeAll(async () => {
  canary = await startLocalServer((_req, res) => res.end('canary reached'));
  canary6 = await startLocalServer((_req, res) => res.end('canary reached'), '::1').catch(() => undefined);
  allowed = await startLocalServer((req, res) => {
    if (req.url === '/to-canary') res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/` }).end();
    else if (req.url === '/to-canary-by-name')
      res.writeHead(301, { location: `http://localhost:${canary.port}/x` }).end();
    else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: req.url }));
  });
  client = createOutboundClient({ allowHosts: `127.0.0.1:${allowed.port}`, timeoutMs: 5_000 });
  subscribe('net.client.socket', onSocket);
});
afterAll(async () => {
  unsubscribe('net.client.socket', onSocket);
  client.close();
  await Promise.all([canary.close(), canary6?.close(), allowed.close()]);
});

const canaryConnections = () => canary.connections + (canary6?.connections ?? 0);

describe('refused targets never get a connection', () => {
  const port = () => canary.port;
  const targets: [string, () => string, boolean][] = [
    // [name, url, is a loopback/unspecified target whose refusal the canary proves]
    ['127.0.0.1', () => `http://127.0.0.1:${port()}/`, true],
    ['127.1', () => `http://127.1:${port()}/`, true],
    ['0.0.0.0', () => `http://0.0.0.0:${port()}/`, true],
    ['2130706433', () => `http://2130706433:${port()}/`, true],
    ['0x7f000001', () => `http://0x7f000001:${port()}/`, true],
    ['0177.0.0.1 (octal)', () => `http://0177.0.0.1:${port()}/`, true],
    ['[::1]', () => `http://[::1]:${port()}/`, true],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${port()}/`, true],
    ['https://127.0.0.1', () => `https://127.0.0.1:${port()}/`, true],
    ['10.0.0.1', () => `http://10.0.0.1:${port()}/`, false],
    ['172.16.0.1', () => `http://172.16.0.1:${port()}/`, false],
    ['192.168.1.1', () => `http://192.168.1.1:${port()}/`, false],
    ['100.64.0.1', () => `http://100.64.0.1:${port()}/`, false],
    ['169.254.169.254 (metadata)', () => 'http://169.254.169.254/latest/meta-data/', false],
    ['[fe80::1]', () => `http://[fe80::1]:${port()}/`, false],
    ['[fc00::1]', () => `http://[fc00::1]:${port()}/`, false],
  ];

  it.each(targets)('%s → OutboundBlockedError before any socket exists', async (_name, url) => {
    const before = sockets.length;
    const err = await client.request({ url: url() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundBlockedError);
    expect(sockets.length).toBe(before);
    expect(canaryConnections()).toBe(0);
  });

  it('localhost → refused on the address it resolves to, and the canary sees nothing', async () => {
    const err = await client.request({ url: `http://localhost:${port()}/` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundBlockedError);
    expect((err as OutboundBlockedError).reason).toBe('loopback');
    expect(canaryConnections()).toBe(0);
  });

  it.each(['file:///etc/passwd', 'ftp://127.0.0.1/', 'gopher://127.0.0.1:70/'])('%s → refused scheme', async (url) => {
    await expect(client.request({ url })).rejects.toBeInstanceOf(OutboundBlockedError);
    expect(canaryConnections()).toBe(0);
  });

  it('a redirect from an allow-listed server to a loopback address that is not allowed is refused', async () => {
    for (const path of ['/to-canary', '/to-canary-by-name']) {
      const err = await client.request({ url: `${allowed.url}${path}` }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutboundBlockedError);
    }
    expect(canaryConnections()).toBe(0);
  });

  it('the connection-level guard refuses on its own, without the URL pre-check', async () => {
    const agents = createGuardedAgents(parseAllowHosts(`127.0.0.1:${allowed.port}`));
    const get = (host: string) =>
      new Promise<unknown>((resolve) => {
        http.get({ host, port: canary.port, agent: agents.http }, () => resolve('connected')).on('error', resolve);
      });
    expect(await get('127.0.0.1')).toBeInstanceOf(OutboundBlockedError);
    expect(await get('localhost')).toBeInstanceOf(OutboundBlockedError);
    expect(canaryConnections()).toBe(0);
    agents.http.destroy();
  });
});

it('the instruments work: a permitted connection is seen by the socket channel and by a canary', async () => {
  const before = sockets.length;
  const direct = createOutboundClient({ allowHosts: `127.0.0.1:${canary.port},[::1]` });
  expect((await direct.request({ url: `${canary.url}/` })).text).toBe('canary reached');
  if (canary6) expect((await direct.request({ url: `${canary6.url}/` })).text).toBe('canary reached');
  expect(sockets.length).toBeGreaterThan(before);
  expect(canaryConnections()).toBe(canary6 ? 2 : 1);
  direct.close();
  canary.connections = 0;
  if (canary6) canary6.connections = 0;
});

describe('allowed targets', () => {
  it('an allow-listed local server answers, JSON parsed', async () => {
    const res = await client.request({ url: `${allowed.url}/hello`, method: 'POST', body: { a: 1 } });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ ok: true, path: '/hello' });
    expect(allowed.requests.at(-1)).toMatchObject({ method: 'POST', json: { a: 1 } });
  });

  it('a hostname on the allow-list (host:port) passes too', async () => {
    const byName = createOutboundClient({ allowHosts: `localhost:${allowed.port}` });
    const res = await byName.request({ url: `http://localhost:${allowed.port}/named` });
    expect(res.data).toEqual({ ok: true, path: '/named' });
    // the same name on another port is not allowed
    await expect(byName.request({ url: `http://localhost:${canary.port}/` })).rejects.toBeInstanceOf(
      OutboundBlockedError,
    );
    expect(canaryConnections()).toBe(0);
    byName.close();
  });

  it('follows redirects between allowed origins; credentials do not cross origins; 303 becomes GET', async () => {
    const other = await startLocalServer((req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null }));
    });
    const hop = await startLocalServer((req, res) => {
      if (req.url === '/same') res.writeHead(307, { location: '/final' }).end();
      else if (req.url === '/cross') res.writeHead(307, { location: `${other.url}/x` }).end();
      else if (req.url === '/see-other') res.writeHead(303, { location: `${other.url}/y` }).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null }));
    });
    const c = createOutboundClient({
      allowHosts: [...parseAllowHosts(`127.0.0.1:${other.port}`), ...parseAllowHosts(`127.0.0.1:${hop.port}`)],
    });
    const headers = { authorization: 'Bearer secret-token' };
    expect((await c.request({ url: `${hop.url}/same`, method: 'POST', headers, body: {} })).data).toEqual({
      method: 'POST',
      auth: 'Bearer secret-token',
    });
    expect((await c.request({ url: `${hop.url}/cross`, method: 'POST', headers, body: {} })).data).toEqual({
      method: 'POST',
      auth: null,
    });
    expect((await c.request({ url: `${hop.url}/see-other`, method: 'POST', headers, body: {} })).data).toEqual({
      method: 'GET',
      auth: null,
    });
    c.close();
    await Promise.all([other.close(), hop.close()]);
  });

  it('stops after maxRedirects', async () => {
    const err = await client.request({ url: `${allowed.url}/loop`, maxRedirects: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundNetworkError);
    expect((err as OutboundNetworkError).code).toBe('TOO_MANY_REDIRECTS');
  });
});
