import { chromium, type Browser, type Route } from 'playwright-core';

import type { OutboundClient } from '@platform/outbound';

/** Renders fetched HTML in Chromium so that text written by JavaScript is there to read. */
export interface BrowserRenderer {
  /** The page's HTML after its scripts ran; `html` is the document already fetched (and checked) for `url`. */
  render(url: string, html: string, waitSecs: number): Promise<string>;
  close(): Promise<void>;
}

export interface BrowserRendererDeps {
  outbound: OutboundClient;
  executablePath: string;
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
  // Every request of a page is answered by the route handler below; anything that escaped it would meet a dead proxy.
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
];

/**
 * A Chromium (Debian's, launched through playwright-core) whose pages never reach the network themselves: every
 * request is fetched by the guarded outbound client (address guard on every hop, time limit, size cap) and handed
 * back with `route.fulfill`; WebSockets and service workers are refused.
 */
export function createBrowserRenderer(deps: BrowserRendererDeps): BrowserRenderer {
  let browser: Promise<Browser> | null = null;
  const launch = () =>
    (browser ??= chromium.launch({
      executablePath: deps.executablePath,
      args: ARGS,
      headless: true,
      timeout: deps.timeoutMs,
    }));

  async function proxy(route: Route, main: { url: string; html: string }): Promise<void> {
    const req = route.request();
    if (req.url() === main.url && req.isNavigationRequest()) {
      await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: main.html });
      return;
    }
    try {
      const res = await deps.outbound.request({
        url: req.url(),
        method: req.method(),
        headers: { ...req.headers(), 'user-agent': deps.userAgent },
        body: req.postDataBuffer() ?? undefined,
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: deps.maxBytes,
        maxRedirects: 5,
      });
      await route.fulfill({ status: res.status, headers: res.headers, body: res.body });
    } catch {
      await route.abort('blockedbyclient').catch(() => undefined);
    }
  }

  return {
    async render(url, html, waitSecs) {
      const b = await launch();
      const context = await b.newContext({
        serviceWorkers: 'block',
        userAgent: deps.userAgent,
        acceptDownloads: false,
      });
      try {
        const page = await context.newPage();
        await page.routeWebSocket(/.*/, (ws) => ws.close());
        await page.route(/.*/, (route) => proxy(route, { url, html }));
        await page.goto(url, { waitUntil: 'load', timeout: deps.timeoutMs });
        await page.waitForLoadState('networkidle', { timeout: Math.max(1, waitSecs) * 1000 }).catch(() => undefined);
        return await page.content();
      } finally {
        await context.close().catch(() => undefined);
      }
    },
    async close() {
      if (!browser) return;
      const b = await browser.catch(() => null);
      browser = null;
      await b?.close().catch(() => undefined);
    },
  };
}
