import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated): some stacks still route it to the embedded IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why an IP address must not be reached from inside the product, or null when it is an ordinary public unicast
 * address. Everything ipaddr.js does not classify as `unicast` is refused: loopback, private (10/8, 172.16/12,
 * 192.168/16), carrier-grade NAT (100.64/10), link-local (169.254/16 with the cloud metadata address, fe80::/10),
 * 0.0.0.0/8, multicast, broadcast, reserved and documentation ranges, unique-local fc00::/7, NAT64, 6to4 and Teredo
 * (which embed IPv4 addresses). IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged by the IPv4 address it carries.
 * Input that is not an IP address is refused too: this function only ever says yes to a real public address.
 */
export function blockedReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  const ip = parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  const range = ip.range();
  if (range !== 'unicast') return range;
  if (ip instanceof ipaddr.IPv6 && ip.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return null;
}

/** True for a literal IPv4 or IPv6 address (brackets allowed), as opposed to a hostname that needs resolving. */
export function isIpLiteral(host: string): boolean {
  return isIP(host.replace(/^\[|\]$/g, '')) !== 0;
}
