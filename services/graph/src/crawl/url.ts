/** URL rules of a crawl: canonical form and "same site". */

const TRACKING = /^(utm_[a-z]+|gclid|fbclid|mc_cid|mc_eid)$/i;

/** The canonical form of a URL: http(s) only, fragment and tracking parameters removed, query sorted; null otherwise. */
export function canonicalUrl(raw: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  const params = [...u.searchParams.entries()]
    .filter(([k]) => !TRACKING.test(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  u.search = new URLSearchParams(params).toString();
  if (u.pathname === '') u.pathname = '/';
  return u.href;
}

/** Same site: the same scheme-independent host and port as one of the start URLs ("www." ignored). */
export function sameSite(url: string, start: string): boolean {
  const a = new URL(url);
  const b = new URL(start);
  const host = (h: string) => h.toLowerCase().replace(/^www\./, '');
  const port = (x: URL) => x.port || (x.protocol === 'https:' ? '443' : '80');
  if (host(a.hostname) !== host(b.hostname)) return false;
  // http → https upgrades on default ports stay on the site; any other port is another site.
  return port(a) === port(b) || (['80', '443'].includes(port(a)) && ['80', '443'].includes(port(b)));
}
