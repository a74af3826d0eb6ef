/** The tracing comparison's figures (tracing.ts): each round, the variants' CPU per trigger and ratios, their spans. */
import type { Jaeger, JaegerTrace } from '@platform/testing';

import { out } from '../kit/bench-kit';
import { KEYS, PROCS, TARGET, TOGETHER, type Key } from './tracing-config';
import type { Round, Variant } from './tracing-round';

export const f = (n: number, d = 2) => n.toFixed(d);
export const sumOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const lowerMedian = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;

/** ms of CPU of `key` in a round; `net`: less what the processes spend idle over the same time. */
function cpuOf(r: Round, v: Variant, key: Key, net: boolean): number {
  const procs = key === 'three' ? PROCS : [key];
  return sumOf(procs.map((p) => (r.used.get(p) ?? 0) - (net ? v.idle.get(p)! * r.windowSeconds : 0)));
}

/** CPU per trigger of `key` over rounds (their ms over their triggers). */
const perTrigger = (rounds: Round[], v: Variant, key: Key, net: boolean) =>
  sumOf(rounds.map((r) => cpuOf(r, v, key, net))) / Math.max(1, sumOf(rounds.map((r) => r.accepted)));

export function printRound(r: Round): void {
  const per = (name: string) => (r.used.get(name) ?? 0) / Math.max(1, r.accepted);
  const shared = TOGETHER
    ? ''
    : ` (stores ${f(per('ferretdb') + per('postgresql') + per('redis'))}, jaeger ${f(per('jaeger'))})`;
  const exported = sumOf([...r.exported.values()]);
  const statuses =
    r.accepted < sumOf([...r.statuses.values()]) ? `, answers ${JSON.stringify(Object.fromEntries(r.statuses))}` : '';
  const failed = r.failed ? `, ${r.failed} failed attempts` : '';
  out(
    `  cycle ${r.cycle + 1} ${r.variant.padEnd(10)}: ${PROCS.map((p) => `${p} ${f(per(p))}`).join(', ')}, three ${f(sumOf(PROCS.map(per)))} ms CPU per trigger${shared}; ${f(r.intakePerS, 0)} triggers/s, p50 ${f(r.p50, 0)} ms, p99 ${f(r.p99, 0)} ms; ${r.ended}/${r.accepted} runs in ${f(r.seconds, 1)} s${statuses}${failed}; spans exported ${exported} (${f(exported / Math.max(1, r.accepted), 1)} per trigger), dropped ${sumOf([...r.dropped.values()])}`,
  );
}

export function summary(rounds: Round[], variants: Variant[]): void {
  const byName = new Map(variants.map((v) => [v.name, v]));
  const off = byName.get('off')!;
  const cycles = [...new Set(rounds.map((r) => r.cycle))];
  const clean = (c: number) =>
    rounds.filter((r) => r.cycle === c).every((r) => r.accepted === sumOf([...r.statuses.values()]) && r.failed === 0);
  const kept = cycles.filter(clean).length ? cycles.filter(clean) : cycles;
  const left = cycles.filter((c) => !kept.includes(c));
  if (left.length)
    out(`  cycle(s) ${left.map((c) => c + 1).join(', ')} left out: a trigger not answered 202 or a run attempt failed`);
  if (!cycles.some(clean)) out('  NO cycle without failures: every cycle is counted');
  const of = (name: string) => rounds.filter((r) => r.variant === name && kept.includes(r.cycle));
  out(
    `CPU per trigger by variant (ms, ${kept.length} cycle(s) pooled; first trigger to last run ended and spans exported, /proc/<pid>/stat user + system; "net": less the processes' idle CPU over the same time):`,
  );
  for (const v of variants) {
    const cells = (net: boolean) =>
      KEYS.map((k) => {
        const ms = perTrigger(of(v.name), v, k, net);
        const ratio = v.name === 'off' ? '' : ` (${f(ms / perTrigger(of('off'), off, k, net))}×)`;
        return `${k} ${f(ms)}${ratio}`;
      }).join(', ');
    // Shared by all variants when they run at once: given only when they run one after the other.
    const groups = (names: string[]) =>
      sumOf(of(v.name).flatMap((r) => names.map((n) => r.used.get(n) ?? 0))) /
      Math.max(1, sumOf(of(v.name).map((r) => r.accepted)));
    const shared = TOGETHER
      ? ''
      : `; stores ${f(groups(['ferretdb', 'postgresql', 'redis']))}, jaeger ${f(groups(['jaeger']))}`;
    out(`  ${v.name.padEnd(10)}: ${cells(false)}${shared}`);
    out(`  ${''.padEnd(10)}  net: ${cells(true)}`);
  }
  for (const v of variants.filter((x) => x.name !== 'off')) {
    const ratios = (net: boolean) => {
      const pooled = perTrigger(of(v.name), v, 'three', net) / perTrigger(of('off'), off, 'three', net);
      const perCycle = kept.map((c) => {
        const a = rounds.find((r) => r.variant === v.name && r.cycle === c)!;
        const b = rounds.find((r) => r.variant === 'off' && r.cycle === c)!;
        return cpuOf(a, v, 'three', net) / a.accepted / (cpuOf(b, off, 'three', net) / b.accepted);
      });
      return { pooled, perCycle };
    };
    const raw = ratios(false);
    const net = ratios(true);
    const verdict =
      v.name === 'always_off'
        ? ''
        : `; target ≤ ${TARGET}: ${raw.pooled <= TARGET ? 'yes' : 'NO'} as measured, ${net.pooled <= TARGET ? 'yes' : 'NO'} net`;
    out(
      `tracing ${v.name} / off, three processes: ${f(raw.pooled)}× CPU per trigger as measured (per cycle ${raw.perCycle.map((x) => f(x)).join(', ')}; lower median ${f(lowerMedian(raw.perCycle))}), ${f(net.pooled)}× net of idle (per cycle ${net.perCycle.map((x) => f(x)).join(', ')})${verdict}`,
    );
  }
  // What the machine's noise alone does to the figures: the off rounds against each other.
  const offRounds = of('off').map((r) => cpuOf(r, off, 'three', false) / r.accepted);
  if (offRounds.length > 1)
    out(
      `  off rounds among themselves: ${offRounds.map((x) => f(x)).join(', ')} ms (max/min ${f(Math.max(...offRounds) / Math.min(...offRounds))}×)`,
    );
}

/** Spans exported and dropped per traced variant, and what Jaeger holds of their traces. */
export async function spansReport(rounds: Round[], variants: Variant[], jaeger: Jaeger): Promise<void> {
  const traced = variants.filter((v) => v.name !== 'off' && v.name !== 'always_off');
  if (!traced.length) return;
  // Read once all rounds are done: every trigger sent to a traced stack (warm-up included) should be a whole trace.
  const all = await jaeger.tracesOf('scheduler', sumOf(traced.map((v) => v.sent)) + 1_000);
  const variantOf = (t: JaegerTrace) =>
    Object.values(t.processes)
      .flatMap((p) => p.tags)
      .find((tag) => tag.key === 'bench.variant')?.value;
  for (const v of traced) {
    const own = rounds.filter((r) => r.variant === v.name);
    const exported = new Map(PROCS.map((p) => [p, sumOf(own.map((r) => r.exported.get(p)!))]));
    const dropped = new Map<string, number>();
    for (const r of own) for (const [k, n] of r.dropped) dropped.set(k, (dropped.get(k) ?? 0) + n);
    const accepted = sumOf(own.map((r) => r.accepted));
    out(
      `${v.name}: spans exported in its measured rounds: ${PROCS.map((p) => `${p} ${exported.get(p)} (${f(exported.get(p)! / Math.max(1, accepted), 1)} per trigger)`).join(', ')}; dropped: ${dropped.size ? [...dropped].map(([k, n]) => `${k} ${n}`).join(', ') : '0'}`,
    );
    const traces = all.filter((t) => variantOf(t) === v.name);
    const whole = traces.filter((t) => {
      const names = new Set(Object.values(t.processes).map((p) => p.serviceName));
      return PROCS.every((p) => names.has(p));
    });
    out(
      `  Jaeger: ${traces.length} traces with a scheduler span (${v.sent} triggers sent to the stack), ${whole.length} with spans of all three processes, ${sumOf(traces.map((t) => t.spans.length))} spans in them`,
    );
    // What a trigger's trace is made of: spans per trace by process and name, over the whole traces.
    const names = new Map<string, number>();
    for (const t of whole)
      for (const s of t.spans) {
        const key = `${t.processes[s.processID]?.serviceName ?? '?'} "${s.operationName}"`;
        names.set(key, (names.get(key) ?? 0) + 1);
      }
    out(
      `  spans per trace: ${[...names]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([k, n]) => `${k} ${f(n / Math.max(1, whole.length), 1)}`)
        .join(', ')}`,
    );
    if (accepted > 0 && sumOf([...exported.values()]) === 0) throw new Error(`${v.name}: tracing exported no span`);
    if (whole.length < v.sent) out(`  MISSING: ${v.sent - whole.length} triggers without a whole trace in Jaeger`);
  }
}
