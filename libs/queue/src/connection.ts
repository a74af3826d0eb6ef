import IORedis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';

import { parseRedisUrl } from '@platform/config';

/** A Redis client of any topology: one node, a master followed through Sentinel (both `IORedis`), or a Cluster. */
export type RedisConnection = IORedis | Cluster;

const retryStrategy = (attempt: number) => Math.min(attempt * 200, 2_000);

/** What the two kinds of connection below differ in. */
interface Behaviour {
  /** Commands retried across a reconnect (`null`: without end, as BullMQ consumers need). */
  maxRetriesPerRequest: number | null;
  /** Commands sent while disconnected wait for the connection (true) or fail at once (false). */
  enableOfflineQueue: boolean;
  connectTimeout: number;
}

/**
 * Opens a connection to what `url` names (see `parseRedisUrl`: `redis://`, `redis+cluster://`, `redis+sentinel://`,
 * each also with `rediss`). A Cluster follows slot moves and failovers (its clients retry while the cluster elects a
 * replica), and Sentinel hands over the new master after a failover.
 */
export function openRedis(url: string, behaviour: Behaviour): RedisConnection {
  const target = parseRedisUrl(url);
  const common: RedisOptions = { ...behaviour, retryStrategy, enableReadyCheck: true };
  if (target.kind === 'single') return new IORedis(url, common);
  const auth = {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
  if (target.kind === 'sentinel')
    return new IORedis({
      ...common,
      ...auth,
      sentinels: target.sentinels,
      name: target.name,
      db: target.db,
      sentinelRetryStrategy: retryStrategy,
    });
  const options: ClusterOptions = {
    redisOptions: {
      ...auth,
      maxRetriesPerRequest: behaviour.maxRetriesPerRequest,
      connectTimeout: behaviour.connectTimeout,
    },
    enableOfflineQueue: behaviour.enableOfflineQueue,
    enableReadyCheck: true,
    clusterRetryStrategy: retryStrategy,
    // A master's failure: its slots answer CLUSTERDOWN or a dropped connection until a replica takes over, which
    // takes about the cluster's node timeout; commands are retried meanwhile instead of failing at once.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 100,
    maxRedirections: 32,
    slotsRefreshTimeout: 2_000,
    // Every command goes to the master of its slot: BullMQ's scripts write, and reads must see the writes.
    scaleReads: 'master',
  };
  return new Cluster(target.nodes, options);
}

/** True for a Redis Cluster client. */
export function isCluster(conn: RedisConnection): conn is Cluster {
  return (conn as Cluster).isCluster === true;
}

/**
 * The key prefix of a queue on `conn`. On a Cluster every key of a BullMQ queue must hash to one slot (its scripts
 * touch many keys at once), so the prefix becomes the hash tag `{<prefix>:<queue>}`: each queue on one slot,
 * different queues spread over the masters. One node or Sentinel: the prefix as given (keys of existing
 * deployments unchanged). A prefix that already carries a tag is kept.
 */
export function queuePrefix(conn: RedisConnection, prefix: string, queue: string): string {
  if (!isCluster(conn) || prefix.includes('{')) return prefix;
  return `{${prefix}:${queue}}`;
}
