import type { ChaosStack, SendResult } from './chaos-stack';

/** Provider calls beyond the first, over the given trigger numbers of accepted runs. */
export function duplicateCalls(calls: Map<number, number>): number {
  let extra = 0;
  for (const c of calls.values()) extra += Math.max(0, c - 1);
  return extra;
}

/** Each scenario ends with every run that was answered 202 ended within this long of recovery. */
export const RECOVERY_BOUND_MS = 120_000;

/** What explains a run that went wrong: errors no rule classified, retried attempts, recoveries. */
export function reportNotable(s: ChaosStack, name: string): void {
  const notable = [
    // Errors first, kept from the start of the run (a 500's cause is here even when later output is cut).
    ...s.errorLines().filter((l) => /"message":"unhandled error"|"status":500/.test(l)),
    ...s
      .logLines()
      .filter((l) =>
        /"message":"(run attempt failed; will retry|run job given up|run recovered under a new job|run abandoned)/.test(
          l,
        ),
      ),
  ];
  if (notable.length > 0)
    process.stderr.write(
      `chaos ${name}: notable log lines:\n${notable
        .slice(0, 20)
        .map((l) => l.slice(0, 600))
        .join('\n')}\n`,
    );
}

/** Asserts the end state and reports what reached the provider. */
export async function expectAllEndedOnce(s: ChaosStack, sent: SendResult, recoveredAt: number, name: string) {
  expect(sent.accepted.length).toBeGreaterThan(0);
  const end = await s.waitEnded(sent.accepted, recoveredAt + RECOVERY_BOUND_MS);
  const statuses: Record<string, number> = {};
  for (const id of sent.accepted) {
    const st = end.byId.get(id)?.status ?? 'missing';
    statuses[st] = (statuses[st] ?? 0) + 1;
  }
  const reached = sent.acceptedNumbers.filter((n) => (s.calls.get(n) ?? 0) > 0).length;
  const duplicates = duplicateCalls(s.calls);
  const redelivered = sent.accepted.filter((id) => (end.byId.get(id)?.attempt ?? 0) > 1).length;
  process.stderr.write(
    `chaos ${name}: answers ${JSON.stringify(sent.statuses)}; accepted ${sent.accepted.length}, ended ${JSON.stringify(statuses)}, ` +
      `reached the provider ${reached}, provider calls beyond the first ${duplicates}, runs with attempt > 1: ${redelivered}; ` +
      `all ended ${Math.round((Date.now() - recoveredAt) / 1000)} s after recovery\n`,
  );
  reportNotable(s, name);
  expect(end.unended).toEqual([]);
  expect(statuses).toEqual({ succeeded: sent.accepted.length });
  expect(reached).toBe(sent.accepted.length);
  // No execution was created twice for one trigger: one record per accepted id.
  expect(new Set(sent.accepted).size).toBe(sent.accepted.length);
  return { duplicates, redelivered };
}
