import {
  createOutboundClient,
  OutboundBlockedError,
  OutboundNetworkError,
  OutboundTimeoutError,
  OutboundTooLargeError,
} from '@platform/outbound';
import { startLocalServer, type LocalServer } from '@platform/testing';

/** Reads a streamed body to its end, or to the error it fails with. */
async function drain(body: AsyncIterable<Buffer>): Promise<{ text: string; err?: unknown }> {
  let text = '';
  try {
    for await (const c of body) text += c.toString('utf8');
    return { text };
  } catch (err) {
    return { text, err };
  }
}

describe('stream()', () => {
  let server: LocalServer;
  let closedEarly = 0;
  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (req.url === '/big') return res.end('x'.repeat(64 * 1024));
      if (req.url === '/three') return res.end('abc');
      // /drip: one byte every 50 ms until the client goes away
      let finished = false;
      const timer = setInterval(() => res.write('.'), 50);
      const end = setTimeout(() => {
        finished = true;
        clearInterval(timer);
        res.end();
      }, 10_000);
      res.on('close', () => {
        clearInterval(timer);
        clearTimeout(end);
        if (!finished) closedEarly += 1;
      });
    });
  });
  afterAll(() => server.close());
  const local = () => createOutboundClient({ allowHosts: `127.0.0.1:${server.port}` });

  it('resolves with the status and headers, then hands over the body', async () => {
    const c = local();
    const res = await c.stream({ url: `${server.url}/three` });
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/plain']);
    expect(await drain(res.body)).toEqual({ text: 'abc' });
    c.close();
  });

  it('a body over the cap fails with OutboundTooLargeError', async () => {
    const c = local();
    const res = await c.stream({ url: `${server.url}/big`, maxResponseBytes: 1024 });
    expect((await drain(res.body)).err).toBeInstanceOf(OutboundTooLargeError);
    c.close();
  });

  it('the time limit covers the body: a dripping stream fails with OutboundTimeoutError', async () => {
    const c = local();
    const res = await c.stream({ url: `${server.url}/drip`, timeoutMs: 400 });
    const out = await drain(res.body);
    expect(out.err).toBeInstanceOf(OutboundTimeoutError);
    expect(out.text.length).toBeGreaterThan(0);
    c.close();
  });

  it("the caller's abort closes the connection and fails the read as ABORTED", async () => {
    const c = local();
    const abort = new AbortController();
    const before = closedEarly;
    const res = await c.stream({ url: `${server.url}/drip`, signal: abort.signal });
    const reading = drain(res.body);
    abort.abort();
    const out = await reading;
    expect(out.err).toBeInstanceOf(OutboundNetworkError);
    expect((out.err as OutboundNetworkError).code).toBe('ABORTED');
    const until = Date.now() + 3_000;
    while (closedEarly === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(closedEarly).toBe(before + 1);
    c.close();
  });

  it('redirects are checked like the first hop', async () => {
    const c = local();
    await expect(c.stream({ url: `${server.url}/redirect` })).rejects.toBeInstanceOf(OutboundBlockedError);
    c.close();
  });
});
