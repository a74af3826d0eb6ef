import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, startServiceProcess } from '@platform/testing';

// A service stand-in: listens on PORT (as the services' main.ts do) and answers every path 200 with its own name.
const script = join(mkdtempSync(join(tmpdir(), 'service-process-')), 'service.js');
writeFileSync(
  script,
  "require('node:http').createServer((req, res) => res.end('child')).listen(Number(process.env.PORT), '0.0.0.0');\n",
);

const listen = (port: number): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer((req, res) => res.end('other')).listen(port, '127.0.0.1', () => resolve(server));
  });

it('is ready once its own process answers on the port', async () => {
  const proc = await startServiceProcess({ script });
  try {
    expect(await (await fetch(proc.url)).text()).toBe('child');
  } finally {
    await proc.stop();
  }
});

it('does not take another process answering on the port for the service: it says the port is taken', async () => {
  const port = await freePort();
  const other = await listen(port);
  try {
    await expect(startServiceProcess({ script, port, timeoutMs: 5000 })).rejects.toThrow(/port taken/);
  } finally {
    other.close();
  }
});
