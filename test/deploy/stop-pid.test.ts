/**
 * scripts/lib.sh's `stop_pid`, with which `infra.sh stop-started-by` ends the stores a CI run started: a process that
 * ignores SIGTERM is ended with SIGKILL after its grace.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const LIB = join(__dirname, '..', '..', 'scripts', 'lib.sh');

const alive = (pid: number): boolean => {
  try {
    // A zombie (exited, not yet reaped by this process) is gone too.
    return !/^\S+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

it('stop_pid ends with SIGKILL a process that ignores SIGTERM', async () => {
  const stubborn = spawn('bash', ['-c', 'trap "" TERM; while :; do sleep 0.1; done'], { stdio: 'ignore' });
  try {
    const started = Date.now();
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile(
        'bash',
        ['-c', 'source "$1" && stop_pid "$2" 1', 'stop-pid.test', LIB, String(stubborn.pid)],
        (err, _o, e) => (err ? reject(new Error(`stop_pid failed: ${e}`)) : resolve(e)),
      ),
    );
    expect(stderr).toMatch(/SIGKILL/);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(alive(stubborn.pid!)).toBe(false);
  } finally {
    stubborn.kill('SIGKILL');
  }
});
