import net from 'node:net';

/** The commands clients sent to a Redis server, as MONITOR reports them. */
export interface RedisMonitor {
  /** Forgets what was seen so far. */
  reset(): void;
  /** `<command> <first argument>` of each command seen since the last reset. Throws if the watch was cut. */
  commands(): string[];
  close(): Promise<void>;
}

/** The quoted words of a MONITOR line: `1700000000.123456 [0 127.0.0.1:5000] "set" "k" "v"`. */
function monitorLine(line: string): { source: string; args: string[] } | null {
  const open = line.indexOf('[');
  const close = line.indexOf(']', open);
  if (open < 0 || close < 0) return null;
  const source = line.slice(open + 1, close).split(' ')[1] ?? '';
  const args = [...line.slice(close + 1).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\"/g, '"'));
  return { source, args };
}

/**
 * Watches a Redis server (use one of the test's own: MONITOR sees every client). Commands run inside Lua scripts
 * are left out: they are not round trips, the script call that ran them is counted.
 *
 * A plain socket rather than a client library's monitor mode: the library's mode mistook monitor lines for replies
 * after a reconnect, and a watch that silently missed commands would let a count pass that should fail; here a cut
 * watch makes `commands()` throw.
 */
export async function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port) || 6379 });
  const seen: string[] = [];
  let cut: Error | null = null;
  let closing = false;
  let buffer = '';
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!ready) {
          if (line === '+OK') {
            ready = true;
            resolve();
          } else reject(new Error(`MONITOR refused: ${line}`));
          continue;
        }
        const entry = line.startsWith('+') ? monitorLine(line.slice(1)) : null;
        if (entry && !entry.source.includes('lua')) seen.push(entry.args.slice(0, 2).join(' '));
      }
    });
    socket.on('error', (err) => {
      cut ??= err;
      if (!ready) reject(err);
    });
    socket.on('close', () => {
      if (!closing) cut ??= new Error('the MONITOR connection closed');
    });
    socket.write('MONITOR\r\n');
  });
  return {
    reset: () => {
      seen.length = 0;
    },
    commands: () => {
      if (cut) throw cut;
      return [...seen];
    },
    close() {
      closing = true;
      return new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        socket.once('close', () => resolve());
        socket.end();
        setTimeout(() => socket.destroy(), 1000).unref();
      });
    },
  };
}
