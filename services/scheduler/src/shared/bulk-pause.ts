import type { Owner } from '@platform/db';

import type { BulkPauseResult } from '../webhooks/webhook.schemas.types';

/** What bulk pause needs of a repository (webhooks, schedules). */
export interface PausableRepository<R> {
  isId(id: string): boolean;
  /** Pauses when active (a conditional update: exactly one concurrent caller wins); null otherwise. */
  pauseIfActive(owner: Owner, id: string, now: Date): Promise<R | null>;
  exists(owner: Owner, id: string): Promise<boolean>;
}

export interface BulkPauseDeps<R, P> {
  repo: PausableRepository<R>;
  clock: () => Date;
  present: (r: R) => P;
  /** Runs after each pause this request made (e.g. removing a schedule's firing from Redis). */
  afterPause?: (r: R) => Promise<void>;
  /** Singular and plural noun of the summary message. */
  noun: [string, string];
}

/** A bulk pause's counts (the wire keys every kind shares) and the objects it paused. */
export type BulkPauseCounts<P> = Omit<BulkPauseResult, 'paused_webhooks'> & { paused: P[] };

type Outcome = 'paused' | 'already_paused' | 'not_found' | 'invalid';

/** How many conditional updates one request runs at once. */
const PARALLEL_UPDATES = 8;

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Pauses the owner's objects among `ids`, classifying every entry exactly once, in order: a malformed id is
 * invalid; an id matching none of the owner's objects is not found (also when repeated); one already paused, or a
 * repeat of a found id, is already paused; the rest are paused by one conditional update each (active → paused),
 * so concurrent requests over the same ids pause each object exactly once (each answer names what it paused).
 */
export async function pauseBulk<R, P>(
  deps: BulkPauseDeps<R, P>,
  owner: Owner,
  ids: string[],
): Promise<BulkPauseCounts<P>> {
  const { repo } = deps;
  const now = deps.clock();
  const distinct = [...new Set(ids.filter((id) => repo.isId(id)))];
  const outcomeOf = new Map<string, { outcome: Outcome; item?: P }>();
  await forEachLimited(distinct, PARALLEL_UPDATES, async (id) => {
    const r = await repo.pauseIfActive(owner, id, now);
    if (r) {
      await deps.afterPause?.(r);
      outcomeOf.set(id, { outcome: 'paused', item: deps.present(r) });
    } else outcomeOf.set(id, { outcome: (await repo.exists(owner, id)) ? 'already_paused' : 'not_found' });
  });

  const counts = { paused: 0, already_paused: 0, not_found: 0, invalid: 0 };
  const paused: P[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const first = outcomeOf.get(id);
    let outcome: Outcome = first?.outcome ?? 'invalid';
    if (seen.has(id) && outcome === 'paused') outcome = 'already_paused';
    seen.add(id);
    counts[outcome]++;
    if (outcome === 'paused' && first?.item) paused.push(first.item);
  }

  return {
    message: summary(ids.length, counts, deps.noun),
    total_requested: ids.length,
    paused_count: counts.paused,
    already_paused_count: counts.already_paused,
    not_found_count: counts.not_found,
    invalid_count: counts.invalid,
    paused,
  };
}

function summary(total: number, c: Record<Outcome, number>, noun: [string, string]): string {
  const rest = [
    c.already_paused && `${c.already_paused} already paused`,
    c.not_found && `${c.not_found} not found`,
    c.invalid && `${c.invalid} invalid`,
  ].filter(Boolean);
  return (
    `Paused ${c.paused} of ${total} ${total === 1 ? noun[0] : noun[1]}` + (rest.length ? ` (${rest.join(', ')})` : '')
  );
}
