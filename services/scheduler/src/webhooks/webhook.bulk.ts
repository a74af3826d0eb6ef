import type { WebhookRepository } from './webhook.repository';
import type { BulkPauseResult, Owner, Webhook, WebhookRecord } from './webhook.types';

export interface BulkPauseDeps {
  repo: WebhookRepository;
  clock: () => Date;
  present: (r: WebhookRecord) => Webhook;
}

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
 * Pauses the owner's webhooks among `ids`, classifying every entry exactly once, in order: a malformed id is
 * invalid; an id matching none of the owner's webhooks is not found (also when repeated); a webhook already paused,
 * or a repeat of a found id, is already paused; the rest are paused by one conditional update each
 * (`is_active: true` → false), so concurrent requests over the same ids pause each webhook exactly once.
 * Each distinct id is looked up by itself: FerretDB serves `_id: {$in: [...]}` by reading the whole collection.
 */
export async function pauseBulk(deps: BulkPauseDeps, owner: Owner, ids: string[]): Promise<BulkPauseResult> {
  const { repo } = deps;
  const now = deps.clock();
  const distinct = [...new Set(ids.filter((id) => repo.isId(id)))];
  const outcomeOf = new Map<string, { outcome: Outcome; webhook?: Webhook }>();
  await forEachLimited(distinct, PARALLEL_UPDATES, async (id) => {
    const r = await repo.setActiveIfNot(owner, id, false, now);
    if (r) outcomeOf.set(id, { outcome: 'paused', webhook: deps.present(r) });
    else outcomeOf.set(id, { outcome: (await repo.get(owner, id)) ? 'already_paused' : 'not_found' });
  });

  const counts = { paused: 0, already_paused: 0, not_found: 0, invalid: 0 };
  const pausedWebhooks: Webhook[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const first = outcomeOf.get(id);
    let outcome: Outcome = first?.outcome ?? 'invalid';
    if (seen.has(id) && outcome === 'paused') outcome = 'already_paused';
    seen.add(id);
    counts[outcome]++;
    if (outcome === 'paused' && first?.webhook) pausedWebhooks.push(first.webhook);
  }

  return {
    message: summary(ids.length, counts),
    total_requested: ids.length,
    paused_count: counts.paused,
    already_paused_count: counts.already_paused,
    not_found_count: counts.not_found,
    invalid_count: counts.invalid,
    paused_webhooks: pausedWebhooks,
  };
}

function summary(total: number, c: Record<Outcome, number>): string {
  const rest = [
    c.already_paused && `${c.already_paused} already paused`,
    c.not_found && `${c.not_found} not found`,
    c.invalid && `${c.invalid} invalid`,
  ].filter(Boolean);
  const noun = total === 1 ? 'webhook' : 'webhooks';
  return `Paused ${c.paused} of ${total} ${noun}` + (rest.length ? ` (${rest.join(', ')})` : '');
}
