import { ValidationError } from '@platform/errors';
import type { OutboundBlockedError } from '@platform/outbound';

import type { CrawlError } from './crawl.types';
import { canonicalUrl } from './url';

/** The guard's address ranges (ipaddr.js names) in words. */
const RANGES: Record<string, string> = {
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  private: 'private address',
  uniqueLocal: 'unique-local address',
  carrierGradeNat: 'carrier-grade NAT address',
  unspecified: 'unspecified address',
  multicast: 'multicast address',
  broadcast: 'broadcast address',
  reserved: 'reserved address',
};

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '').toLowerCase();

/** Whether the guard's refused `host` (a hostname, or host:port) is `url`'s own host. */
function isOwnHost(err: OutboundBlockedError, url: URL): boolean {
  let refused: URL;
  try {
    refused = new URL(`http://${err.host}`);
  } catch {
    return false;
  }
  if (bare(refused.hostname) !== bare(url.hostname)) return false;
  if (!/:\d+$/.test(err.host)) return true;
  const fallback = url.protocol === 'https:' ? '443' : '80';
  return (refused.port || '80') === (url.port || fallback);
}

/**
 * Why the outbound guard refused a fetch of `url`, in words: "refused by the outbound guard (link-local address)";
 * when the refused host is not the URL's own (a redirect led there), that host is named.
 */
export function guardReason(err: OutboundBlockedError, url: string): string {
  const range = RANGES[err.reason] ?? (/^[A-Za-z0-9]+$/.test(err.reason) ? `${err.reason} address` : err.reason);
  if (isOwnHost(err, new URL(url))) return `refused by the outbound guard (${range})`;
  return `redirected to ${err.host}, refused by the outbound guard (${range})`;
}

/** A start URL (as the caller gave it, with its place in `urls`) that gave no page, and why. */
export interface StartFailure {
  index: number;
  url: string;
  reason: string;
}

/** The start URLs that the crawl reported as not crawled (`errors` holds them under their canonical form). */
export function startFailures(urls: string[], errors: CrawlError[]): StartFailure[] {
  const reasons = new Map<string, string>();
  for (const e of errors) if (!reasons.has(e.url)) reasons.set(e.url, e.reason);
  const out: StartFailure[] = [];
  urls.forEach((url, index) => {
    const reason = reasons.get(canonicalUrl(url) ?? url);
    if (reason !== undefined) out.push({ index, url, reason });
  });
  return out;
}

/**
 * The answer to a training that trained nothing because its start URLs were refused (outbound guard, robots.txt)
 * or could not be fetched: 422 with one entry per start URL, naming it and the reason (contract §6).
 */
export function startUrlsRefused(failures: StartFailure[]): ValidationError {
  return new ValidationError(
    failures.map((f) => ({ loc: ['body', 'urls', f.index], msg: `${f.url}: ${f.reason}`, type: 'url_not_crawled' })),
  );
}
