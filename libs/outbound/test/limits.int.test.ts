import {
  createOutboundClient,
  OutboundNetworkError,
  OutboundTimeoutError,
  OutboundTooLargeError,
} from '@platform/outbound';
import { startLocalServer, type LocalServer } from '@platform/testing';

describe('limits', () => {
  let slow: LocalServer;
  beforeAll(async () => {
    slow = await startLocalServer((req, res) => {
      if (req.url === '/hang') return; // accepts, never answers
      if (req.url === '/drip') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(2 * 1024 * 1024));
    });
  });
  afterAll(() => slow.close());
  const local = () => createOutboundClient({ allowHosts: `127.0.0.1:${slow.port}` });

  it.each(['/hang', '/drip'])('%s → OutboundTimeoutError at the time limit', async (path) => {
    const c = local();
    const started = Date.now();
    const err = await c.request({ url: `${slow.url}${path}`, timeoutMs: 700 }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(OutboundTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(2_000);
    c.close();
  });

  it('a body over the cap → OutboundTooLargeError; under it, the whole body', async () => {
    const c = local();
    await expect(c.request({ url: `${slow.url}/big`, maxResponseBytes: 1024 * 1024 })).rejects.toBeInstanceOf(
      OutboundTooLargeError,
    );
    const res = await c.request({ url: `${slow.url}/big`, maxResponseBytes: 3 * 1024 * 1024 });
    expect(res.body.length).toBe(2 * 1024 * 1024);
    c.close();
  });

  it('a refused connection is a network error, not a refusal by the guard', async () => {
    const closed = await startLocalServer(() => undefined);
    await closed.close();
    const c = createOutboundClient({ allowHosts: `127.0.0.1:${closed.port}` });
    const err = await c.request({ url: `${closed.url}/` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundNetworkError);
    expect((err as OutboundNetworkError).code).toBe('ECONNREFUSED');
    c.close();
  });
});
