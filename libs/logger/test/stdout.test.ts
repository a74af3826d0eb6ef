import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * A service's lines on standard output (no stream given): written together once per turn of the event loop, and
 * written before the process ends however it ends short of being killed. Each case runs the built logger in a child
 * process of its own, whose standard output is a pipe, as in a container.
 */
const LOGGER = path.join(__dirname, '..', 'dist', 'index.js');

function run(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { createLogger } = require(${JSON.stringify(LOGGER)});
const log = createLogger({ service: 'stdout-test' });
let writes = 0;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => { writes++; return write(chunk, ...rest); };
${body}`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

const messages = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { message: string }).message);

test("a turn's lines go out in one write, in order, each line whole", async () => {
  const out = await run(`
for (let i = 0; i < 5; i++) log.info('line ' + i);
setTimeout(() => {
  log.warn('later');
  setTimeout(() => process.stderr.write('writes=' + writes), 20);
}, 20);`);
  expect(out.code).toBe(0);
  expect(messages(out.stdout)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4', 'later']);
  expect(out.stderr).toBe('writes=2');
});

test('lines logged just before process.exit are written', async () => {
  const out = await run(`log.info('first'); log.error('last words'); process.exit(3);`);
  expect(out.code).toBe(3);
  expect(messages(out.stdout)).toEqual(['first', 'last words']);
});

test('lines logged before an uncaught error ends the process are written', async () => {
  const out = await run(`log.info('before the crash'); throw new Error('boom');`);
  expect(out.code).toBe(1);
  expect(messages(out.stdout)).toEqual(['before the crash']);
  expect(out.stderr).toContain('boom');
});

test('more than 64 KiB logged in one turn is written as it fills, nothing lost', async () => {
  const out = await run(`
const pad = 'x'.repeat(1000);
for (let i = 0; i < 300; i++) log.info('big ' + i, { pad });
setTimeout(() => process.stderr.write('writes=' + writes), 20);`);
  const got = messages(out.stdout);
  expect(got).toHaveLength(300);
  expect(got[299]).toBe('big 299');
  expect(Number(out.stderr.replace('writes=', ''))).toBeGreaterThan(1);
  expect(Number(out.stderr.replace('writes=', ''))).toBeLessThan(20);
});
