/**
 * What replicas.chaos.test.ts reads once the traffic has stopped: how the accepted triggers' runs ended and how often
 * each reached the provider, how the HTTP schedules' fires ran and hit their target, and which gateway answers
 * failed, against the time of the kill.
 */
import { type executionModel } from '@platform/scheduling';

import { sleep } from './chaos-stack';
import { type ReplicaStack } from './replicas.stack';
import { type Sent, type Trigger } from './replicas.traffic';

/** How long after the kill gateway requests may still fail (in flight on a killed replica, or just sent to it). */
export const KILL_WINDOW_MS = 10_000;

/** The scheduler's executions (shared by the worker), as the stack's database holds them. */
type Executions = ReturnType<typeof executionModel>;

/** Every accepted trigger's run, once all have ended (or 90 s have passed), and its provider calls. */
export async function triggerOutcome(
  s: ReplicaStack,
  Execution: Executions,
  webhookId: string,
  triggers: Trigger[],
  killedAt: number,
) {
  const accepted = triggers.filter((t) => t.status === 202 && t.id);
  const deadline = Date.now() + 90_000;
  let runs: { _id: { toHexString(): string }; status: string }[] = [];
  for (;;) {
    runs = await Execution.find({ webhook_id: webhookId }, { status: 1 }).lean();
    const ended = runs.filter((r) => ['succeeded', 'failed', 'skipped'].includes(r.status)).length;
    if (ended === runs.length || Date.now() > deadline) break;
    await sleep(1_000);
  }
  const byId = new Map(runs.map((r) => [r._id.toHexString(), r.status]));
  const notSucceeded = accepted.filter((t) => byId.get(t.id!) !== 'succeeded');
  // Provider calls by trigger number: exactly one, except runs in flight where the worker or agent died.
  const nearKill = (at: number) => at > killedAt - 30_000 && at < killedAt + KILL_WINDOW_MS;
  const wrongCalls = accepted.filter((t) => (s.calls.get(t.n) ?? 0) !== 1);
  const repeated = wrongCalls.filter((t) => (s.calls.get(t.n) ?? 0) > 1 && nearKill(t.at));
  return { accepted, notSucceeded, wrongCalls, repeated };
}

/** The executions of the schedules' fires: per fire, the boundaries missed, and target hits that differ from runs. */
export async function fireOutcome(
  Execution: Executions,
  scheduleIds: string[],
  boundaries: number[],
  hits: Map<string, number>,
) {
  const fires = await Execution.find(
    { schedule_id: { $in: scheduleIds } },
    { schedule_id: 1, fire_key: 1, scheduled_for: 1, status: 1 },
  ).lean();
  const perFire = new Map<string, number>();
  for (const f of fires) perFire.set(f.fire_key, (perFire.get(f.fire_key) ?? 0) + 1);
  const missed = boundaries.flatMap((b) =>
    scheduleIds
      .filter(
        (id) =>
          !fires.some(
            (f) =>
              f.schedule_id === id && (f.scheduled_for as Date | null)?.getTime() === b && f.status === 'succeeded',
          ),
      )
      .map((id) => `${id}@${new Date(b).toISOString()}`),
  );
  const hitMismatch = scheduleIds
    .map((id, i) => ({
      id,
      hits: hits.get(String(i)) ?? 0,
      runs: fires.filter((f) => f.schedule_id === id && f.status === 'succeeded').length,
    }))
    .filter((x) => x.hits !== x.runs);
  return { fires, perFire, missed, hitMismatch };
}

/** The gateway's failed answers, those outside the window after the kill, and every answer counted by kind. */
export function gatewayFailures(sent: Sent[], killedAt: number) {
  const failures = sent.filter((r) => r.status === 0 || r.status >= 500);
  // A request in flight at the kill (sent before it, answered after) may fail as well as one sent just after it.
  const outside = failures.filter((r) => r.end < killedAt || r.at > killedAt + KILL_WINDOW_MS);
  const statuses: Record<string, number> = {};
  for (const r of sent) statuses[`${r.kind} ${r.status}`] = (statuses[`${r.kind} ${r.status}`] ?? 0) + 1;
  return { failures, outside, statuses };
}
