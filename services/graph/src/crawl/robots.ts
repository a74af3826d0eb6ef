import robotsParser from 'robots-parser';

import type { OutboundClient } from '@platform/outbound';

/** Answers whether a URL may be crawled, from its origin's robots.txt (fetched once per origin and crawl). */
export interface RobotsRules {
  allowed(url: string): Promise<boolean>;
}

const ROBOTS_MAX_BYTES = 512 * 1024;

/**
 * robots.txt per origin, fetched through the guarded client. A missing robots.txt (4xx) allows everything; a
 * robots.txt that cannot be read (5xx, network, guard) disallows the origin, as Google does for 5xx.
 */
export function createRobotsRules(deps: {
  outbound: OutboundClient;
  userAgent: string;
  timeoutMs: number;
}): RobotsRules {
  const byOrigin = new Map<string, Promise<(url: string) => boolean>>();
  async function load(origin: string): Promise<(url: string) => boolean> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const res = await deps.outbound.request({
        url: robotsUrl,
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: ROBOTS_MAX_BYTES,
        maxRedirects: 5,
      });
      if (res.status >= 400 && res.status < 500) return () => true;
      if (res.status !== 200) return () => false;
      const rules = robotsParser(robotsUrl, res.text);
      return (url) => rules.isAllowed(url, deps.userAgent) !== false;
    } catch {
      return () => false;
    }
  }
  return {
    async allowed(url) {
      const origin = new URL(url).origin;
      let rules = byOrigin.get(origin);
      if (!rules) {
        rules = load(origin);
        byOrigin.set(origin, rules);
      }
      return (await rules)(url);
    },
  };
}
