/**
 * CPU time of named groups of processes, read from `/proc/<pid>/stat` (user + system, plus what their reaped children
 * spent): a difference of two readings is what a group spent in a phase. A group is every live process a rule picks
 * (by pid, or by command name and command line); a process that ends between the readings is counted through its
 * parent's children time when its parent is in the group too (PostgreSQL's backends under the postmaster), so the sum
 * stays right as backends come and go.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime + cutime + cstime, in ms. */
  ms: number;
}

function statOf(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const f = text.slice(close + 2).split(' '); // from field 3 (state)
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]); // fields 14–17
    return { pid, comm, ppid: Number(f[1]), ms: (ticks * 1000) / TICKS_PER_S };
  } catch {
    return null; // gone
  }
}

const cmdlineOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

/** Which processes form a group: given pids, or a command name (and optionally a command-line test). */
export type ProcessRule = { pids: number[] } | { comm: string; cmdline?: RegExp };

export interface CpuGroups {
  /** Milliseconds of CPU each group has spent so far (a reading). */
  read(): Map<string, number>;
}

export function cpuGroups(rules: Record<string, ProcessRule>): CpuGroups {
  return {
    read() {
      const all = readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .map((d) => statOf(Number(d)))
        .filter((s): s is Stat => s !== null);
      const out = new Map<string, number>();
      for (const [name, rule] of Object.entries(rules)) {
        const picked =
          'pids' in rule
            ? all.filter((s) => rule.pids.includes(s.pid))
            : all.filter((s) => s.comm === rule.comm && (!rule.cmdline || rule.cmdline.test(cmdlineOf(s.pid))));
        out.set(
          name,
          picked.reduce((sum, s) => sum + s.ms, 0),
        );
      }
      return out;
    },
  };
}

/** What each group spent between two readings. */
export const spent = (before: Map<string, number>, after: Map<string, number>): Map<string, number> =>
  new Map([...after].map(([name, ms]) => [name, ms - (before.get(name) ?? 0)]));

/**
 * The stores of the development stack: the FerretDB listening on `mongoPort`, PostgreSQL (all its processes: other
 * databases' work on the machine counts too) and the Redis on `redisPort`.
 */
export const storeRules = (mongoPort: number, redisPort: number): Record<string, ProcessRule> => ({
  ferretdb: { comm: 'ferretdb', cmdline: new RegExp(`--listen-addr=[^ ]*:${mongoPort}\\b`) },
  postgresql: { comm: 'postgres' },
  redis: { comm: 'redis-server', cmdline: new RegExp(`:${redisPort}\\b`) },
});

/** One line per group: ms per item, and, given a floor's figures, the ratio to it. */
export function cpuLines(
  label: string,
  perItem: Map<string, number>,
  floor?: Map<string, number>,
  pairs: Record<string, string> = {},
): string[] {
  return [...perItem].map(([name, ms]) => {
    const f = floor?.get(pairs[name] ?? name);
    const ratio = f !== undefined && f > 0 ? ` (${(ms / f).toFixed(2)}× the floor's ${f.toFixed(2)} ms)` : '';
    return `${label} ${name.padEnd(12)}: ${ms.toFixed(2)} ms CPU per item${ratio}`;
  });
}
