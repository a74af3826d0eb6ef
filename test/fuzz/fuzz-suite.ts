/** The gate each service's fuzz test file runs: start the target, send the requests, fail on any violation. */
import { readdirSync } from 'node:fs';

import { closeConnections, fuzzSettings, runFuzz, summary } from './fuzz-runner';
import type { Target } from './target-kit';

/** Services fuzzed by `pnpm test` and `pnpm fuzz` (one `<service>.fuzz.test.ts` each); FUZZ_RUNS is shared out between them. */
export const FUZZED_SERVICES = readdirSync(__dirname).filter((f) => f.endsWith('.fuzz.test.ts')).length;

/** Failures printed at most (FUZZ_SHOW); the count says how many there were. */
const SHOWN_FAILURES = Number(process.env.FUZZ_SHOW ?? 15);

/**
 * Fuzzes `service` with FUZZ_RUNS / FUZZED_SERVICES requests from FUZZ_SEED: no answer may be a 5xx, none may take
 * longer than FUZZ_TIMEOUT_MS, every error must carry `detail`. The target (databases, processes, servers) is
 * closed in afterAll, pass or fail.
 */
export function fuzzSuite(service: string, start: () => Promise<Target>): void {
  const settings = fuzzSettings(FUZZED_SERVICES);
  let target: Target | undefined;

  beforeAll(async () => {
    target = await start();
  }, 180_000);

  afterAll(async () => {
    closeConnections();
    await target?.close();
  }, 60_000);

  test(
    `${service}: ${settings.runs} generated requests (seed ${settings.seed}): no 5xx, no hang, every error has detail`,
    async () => {
      const t = target!;
      const report = await runFuzz(service, t.port, t.doc, t.ctx, settings);
      process.stdout.write(summary(report));
      expect(report.requests).toBe(settings.runs);
      expect({
        seed: report.seed,
        violations: report.failures.length,
        first: report.failures.slice(0, SHOWN_FAILURES),
      }).toEqual({
        seed: settings.seed,
        violations: 0,
        first: [],
      });
    },
    settings.runs * settings.timeoutMs,
  );
}
