import type { ServerResponse } from 'node:http';

import { startLocalServer, type LocalServer, type ReceivedRequest } from '@platform/testing';

/** The local stand-in website of the crawl tests, and the servers that must never be reached. */
export interface TestSite {
  site: LocalServer;
  /** Another site (same host, other port, allowed by the guard): linked from the home page, never to be crawled. */
  offsite: LocalServer;
  /** A private address the guard does not allow: a page redirects there, and it must record no connection. */
  trap: LocalServer;
  /** Page bodies larger than the crawler's cap. */
  hugeBytes: number;
  /** From now on, slow pages numbered `from` or more are answered only after `releaseSlow()`. */
  holdSlow(from: number): void;
  /** Answers the held slow pages, and holds none from now on. */
  releaseSlow(): void;
  close(): Promise<void>;
}

const page = (title: string, body: string, links: string[] = [], head = '') =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body>` +
  `<nav><a href="/">Home</a> Navigation menu text that is boilerplate</nav>` +
  `<main>${body}${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>` +
  `<footer>Copyright footer boilerplate</footer><script>var tracking = "script text must not be trained";</script></body></html>`;

function html(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

/** Starts the three servers; the site's pages are described in the crawl tests. */
export async function startTestSite(opts: { hugeBytes: number; slowMs?: number }): Promise<TestSite> {
  const offsite = await startLocalServer((_req, res) =>
    html(res, page('Elsewhere', '<p>Offsite Corporation sells umbrellas.</p>')),
  );
  const trap = await startLocalServer((_req, res) =>
    html(res, page('Trap', '<p>Internal secrets of the metadata service.</p>')),
  );
  const slow = opts.slowMs ?? 0;
  let holdFrom = Infinity;
  const held: (() => void)[] = [];
  const site = await startLocalServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path.startsWith('/slow/')) {
      await new Promise((r) => setTimeout(r, slow));
      if (Number(path.slice('/slow/'.length)) >= holdFrom) await new Promise<void>((r) => held.push(r));
    }
    return answerSitePage(req, res, path, { offsite, trap, hugeBytes: opts.hugeBytes });
  });
  return {
    site,
    offsite,
    trap,
    hugeBytes: opts.hugeBytes,
    holdSlow(from) {
      holdFrom = from;
    },
    releaseSlow() {
      holdFrom = Infinity;
      for (const release of held.splice(0)) release();
    },
    async close() {
      await Promise.all([site.close(), offsite.close(), trap.close()]);
    },
  };
}

/** The site's answer to one request (after any slow page's delay): its pages, redirects and files by path. */
function answerSitePage(
  req: ReceivedRequest,
  res: ServerResponse,
  path: string,
  ctx: { offsite: LocalServer; trap: LocalServer; hugeBytes: number },
) {
  switch (path) {
    case '/robots.txt':
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nDisallow: /private/\n');
    case '/':
      return html(
        res,
        page(
          'Zylotech Home',
          '<h1>Zylotech</h1><p>Ada Lovelace founded Zylotech in Paris. Zylotech designs quantum lanterns.</p>',
          [
            '/about',
            '/products',
            '/private/secret',
            `${ctx.offsite.url}/`,
            '/about#team',
            '/about?utm_source=newsletter',
          ],
        ),
      );
    case '/about':
      return html(
        res,
        page(
          'About Zylotech',
          '<p>Charles Babbage works at Zylotech. The Qorvian Institute is located in Lisbon. The Qorvian Institute studies lantern optics.</p>',
          ['/team', '/'],
          '<link rel="canonical" href="/about">',
        ),
      );
    case '/team':
      return html(
        res,
        page('Team', '<p>Grace Hopper leads the lantern engineering team at Zylotech.</p>', ['/team/deep']),
      );
    case '/team/deep':
      return html(res, page('Deep', '<p>Deep page beyond the depth limit about Marblefish.</p>'));
    case '/products':
      return html(
        res,
        page(
          'Products',
          '<p>The Acme Corporation buys quantum lanterns from Zylotech. The Glowmaster lantern burns for ninety days.</p>',
          ['/go-private', '/go-metadata', '/huge', '/js'],
        ),
      );
    case '/go-private':
      res.writeHead(302, { location: `${ctx.trap.url}/latest/meta-data/` });
      return res.end();
    case '/go-metadata':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    case '/huge':
      return html(res, page('Huge', `<p>${'Enormous filler text. '.repeat(Math.ceil(ctx.hugeBytes / 22))}</p>`));
    case '/js':
      return html(
        res,
        '<!doctype html><html><head><title>Lantern Moon</title></head><body><main id="app"></main>' +
          '<script>document.getElementById("app").innerHTML = "<p>The Moonlight lantern glows violet over Reykjavik.</p>";</script></body></html>',
      );
    case '/external-script': {
      const src = new URL(req.url, 'http://x').searchParams.get('src') ?? '';
      return html(
        res,
        page('External script', `<p>The Harbor lantern is sold in Oslo.</p><script src="${src}"></script>`),
      );
    }
    case '/broken':
      return html(res, page('Broken', '<p>Internal error.</p>'), 500);
    case '/data.json':
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"lantern":"Glowmaster"}');
    case '/private/secret':
      return html(res, page('Secret', '<p>Robots must never read this.</p>'));
    default:
      if (path.startsWith('/wide/')) {
        // Every page links to ten others: a crawl whose cap is lower than the links found must stop fetching.
        const n = Number(path.slice('/wide/'.length));
        const next = Array.from({ length: 10 }, (_, i) => `/wide/${n * 10 + i + 1}`);
        return html(res, page(`Wide ${n}`, `<p>Wide page number ${n} describes the Fennel lantern.</p>`, next));
      }
      if (path.startsWith('/slow/')) {
        // A tree of slow pages (each links to two more) without the navigation link home: every page a crawl
        // of it fetches is trained, so a crawl capped at 12 trains 12.
        const n = Number(path.slice('/slow/'.length));
        const next = n < 50 ? `<a href="/slow/${2 * n + 1}">left</a> <a href="/slow/${2 * n + 2}">right</a>` : '';
        return html(
          res,
          `<!doctype html><html><head><title>Slow ${n}</title></head><body><main>` +
            `<p>Slow page number ${n} describes the Tundra lantern model ${n}.</p>${next}</main></body></html>`,
        );
      }
      return html(res, page('Missing', '<p>Not here.</p>'), 404);
  }
}
