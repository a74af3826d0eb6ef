import { spawn, type ChildProcess } from 'node:child_process';

import { registerChild, stopChild } from './children';
import { infraEnv } from './infra-env';
import { freePort } from './net';

export interface PrivateRedis {
  url: string;
  port: number;
  start(): Promise<void>;
  /** Kills the server (SIGKILL: like a crash; it keeps nothing on disk). */
  stop(): Promise<void>;
}

async function pingable(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.setTimeout(500);
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

/** A redis-server of this test's own, which it may stop and restart without disturbing other test files. */
export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const self: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
          env: infraEnv(),
        },
      );
      const forget = registerChild(started);
      started.once('exit', forget);
      child = started;
      for (let i = 0; i < 100; i++) {
        if (await pingable(port)) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      await self.stop();
      throw new Error(`redis-server did not start on ${port}`);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (c) await stopChild(c);
    },
  };
  process.once('exit', () => child?.kill('SIGKILL'));
  await self.start();
  return self;
}
