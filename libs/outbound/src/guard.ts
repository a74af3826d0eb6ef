import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';

import { blockedReason, isIpLiteral } from './address';
import { isAllowed, type AllowEntry } from './allow-list';
import { OutboundBlockedError } from './errors';

/**
 * A `lookup` for net/tls that resolves `host` and refuses the connection when any address it resolves to is not
 * public. It runs for every connection the socket makes, so the check applies to the address actually connected,
 * whatever DNS answered a moment earlier (DNS rebinding).
 */
export function guardedLookup(host: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const reason = blockedReason(a.address);
        if (reason) return callback(new OutboundBlockedError(host, reason, a.address), []);
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

type ConnectCallback = (err: Error | null, socket?: Duplex) => void;
type CreateConnection = (options: http.ClientRequestArgs, callback: ConnectCallback) => Duplex | undefined;

/**
 * Wraps an agent's `createConnection` so that every new socket is checked: allow-listed host:port pairs pass,
 * literal addresses are judged directly (Node skips `lookup` for them), hostnames get the guarded lookup, and
 * unix sockets are refused. A refusal reaches the request as an error before any packet is sent.
 */
function guardAgent<A extends http.Agent>(agent: A, allow: AllowEntry[], defaultPort: number): A {
  const target = agent as unknown as { createConnection: CreateConnection };
  const original = target.createConnection.bind(agent);
  target.createConnection = (options, callback) => {
    const host = options.host ?? options.hostname ?? 'localhost';
    const port = Number(options.port) || defaultPort;
    if (options.socketPath) {
      callback(new OutboundBlockedError(options.socketPath, 'unix sockets are not allowed'));
      return undefined;
    }
    if (isAllowed(allow, host, port)) return original(options, callback);
    if (isIpLiteral(host)) {
      const reason = blockedReason(host);
      if (reason) {
        callback(new OutboundBlockedError(host, reason, host));
        return undefined;
      }
      return original(options, callback);
    }
    return original({ ...options, lookup: guardedLookup(host) }, callback);
  };
  return agent;
}

/** http and https agents (keep-alive) whose every connection goes through the address guard. */
export function createGuardedAgents(allow: AllowEntry[]): { http: http.Agent; https: https.Agent } {
  return {
    http: guardAgent(new http.Agent({ keepAlive: true, maxSockets: 64 }), allow, 80),
    https: guardAgent(new https.Agent({ keepAlive: true, maxSockets: 64 }), allow, 443),
  };
}
