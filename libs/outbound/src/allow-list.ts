import { blockedReason, isIpLiteral } from './address';

/** One operator allow-list entry: a host (any port) or a host and one port. */
export interface AllowEntry {
  host: string;
  port?: number;
}

/** The host as the WHATWG URL parser normalises it: lower case, numeric IPv4 forms as dotted quads, IPv6 bracketed. */
function normaliseHost(host: string): string {
  return new URL(`http://${host}/`).hostname;
}

/**
 * Parses `OUTBOUND_ALLOW_HOSTS`: comma-separated `host` or `host:port` entries (`localhost`, `127.0.0.1:8080`,
 * `[::1]:9000`, `llm.internal`). Hosts are normalised as URLs are, so `127.1` names `127.0.0.1`.
 * Throws on an entry that is not a host.
 */
export function parseAllowHosts(raw: string | string[] | undefined): AllowEntry[] {
  const items = (Array.isArray(raw) ? raw : (raw ?? '').split(',')).map((s) => s.trim()).filter(Boolean);
  return items.map((item) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+)(?::(\d{1,5}))?$/.exec(item);
    if (!m?.[1]) throw new Error(`OUTBOUND_ALLOW_HOSTS: "${item}" is not a host or host:port`);
    const port = m[2] === undefined ? undefined : Number(m[2]);
    if (port !== undefined && (port < 1 || port > 65535))
      throw new Error(`OUTBOUND_ALLOW_HOSTS: bad port in "${item}"`);
    return port === undefined ? { host: normaliseHost(m[1]) } : { host: normaliseHost(m[1]), port };
  });
}

/** True when `host` (as in a parsed URL, IPv6 bracketed or not) on `port` is named by the allow-list. */
export function isAllowed(allow: AllowEntry[], host: string, port: number): boolean {
  if (allow.length === 0) return false;
  const lower = host.toLowerCase();
  const h = lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
  return allow.some((e) => e.host === h && (e.port === undefined || e.port === port));
}

/**
 * Why a URL that a user stores for later calls (a callback, an HTTP schedule) names a host no call will ever be let
 * through to: a literal IP address in a refused range (loopback, private, link-local with the metadata address, ...)
 * that the allow-list does not name. Null for anything else: a host name is judged at every connection instead, as
 * what it resolves to may change. Answered when the URL is stored, so the mistake is the caller's 422, not a failed
 * delivery later.
 */
export function refusedLiteralHost(url: string, allow: AllowEntry[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = parsed.hostname;
  if (!isIpLiteral(host)) return null;
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  if (isAllowed(allow, host, port)) return null;
  const reason = blockedReason(host);
  return reason === null ? null : `${host} is a ${reason} address, which calls from the platform may not reach`;
}
