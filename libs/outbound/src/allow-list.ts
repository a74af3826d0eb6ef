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
