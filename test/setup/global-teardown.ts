import { CHILDREN_DIR_ENV, killRecordedChildren } from '../../libs/testing/src/children';

/**
 * Ends every process a test file started and did not stop (a crash, a timeout, a failed afterAll), so a test run
 * leaves nothing running. A process found here is a bug of the test that started it: it is named on stderr.
 */
export default function globalTeardown(): void {
  const dir = process.env[CHILDREN_DIR_ENV];
  if (!dir) return;
  const killed = killRecordedChildren(dir);
  if (killed.length > 0)
    process.stderr.write(
      `global teardown: killed ${killed.length} process(es) a test left running: ${killed.join(', ')}\n`,
    );
}
