import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CHILDREN_DIR_ENV } from '../../libs/testing/src/children';

/** Gives the test workers a folder where they record the processes they start (see global-teardown). */
export default function globalSetup(): void {
  process.env[CHILDREN_DIR_ENV] = mkdtempSync(join(tmpdir(), 'test-children-'));
}
