import robotsParser from 'robots-parser';

import { OutboundBlockedError, type OutboundClient } from '@platform/outbound';

import { guardReason } from './refusals';

/** Answers whether a URL may be crawled, from its origin's robots.txt (fetched once per origin and crawl). */
export interface RobotsRules {
  /** Why `url` may not be crawled ("disallowed by robots.txt", robots.txt unreadable, guard refusal), or null. */
  refusal(url: string): Promise<string | null>;
}

const ROBOTS_MAX_BYTES = 512 * 1024;

/**
 * robots.txt per origin, fetched through the guarded client. A missing robots.txt (4xx) allows everything; a
 * robots.txt that cannot be read (5xx, network, guard) disallows the origin, as Google does for 5xx. The reason
 * given is the real one: an origin the guard refuses is reported as such, not as a robots.txt rule.
 */
export function createRobotsRules(deps: {
  outbound: OutboundClient;
  userAgent: string;
  timeoutMs: number;
}): RobotsRules {
  const byOrigin = new Map<string, Promise<(url: string) => string | null>>();
  async function load(origin: string): Promise<(url: string) => string | null> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const res = await deps.outbound.request({
        url: robotsUrl,
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: ROBOTS_MAX_BYTES,
        maxRedirects: 5,
      });
      if (res.status >= 400 && res.status < 500) return () => null;
      if (res.status !== 200) return () => `robots.txt unreadable (HTTP ${res.status})`;
      const rules = robotsParser(robotsUrl, res.text);
      return (url) => (rules.isAllowed(url, deps.userAgent) === false ? 'disallowed by robots.txt' : null);
    } catch (err) {
      const reason =
        err instanceof OutboundBlockedError
          ? guardReason(err, robotsUrl)
          : `robots.txt unreadable (${(err as Error).message})`;
      return () => reason;
    }
  }
  return {
    async refusal(url) {
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
