import { connect, createServer as createTcpServer, type Server, type Socket } from 'node:net';

import { freePort } from '@platform/testing';

/**
 * A TCP door in front of a local server on a port of its own: open, it forwards every connection; shut, nothing
 * listens on its port (connections are refused), as when the agent service is down.
 */
export interface Door {
  url: string;
  open(): Promise<void>;
  shut(): Promise<void>;
}

export async function startDoor(targetPort: number): Promise<Door> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const door: Door = {
    url: `http://127.0.0.1:${port}`,
    open: () =>
      new Promise<void>((resolve, reject) => {
        if (server) return resolve();
        const s = createTcpServer((client) => {
          const upstream = connect(targetPort, '127.0.0.1');
          const drop = () => {
            client.destroy();
            upstream.destroy();
            sockets.delete(client);
            sockets.delete(upstream);
          };
          sockets.add(client).add(upstream);
          for (const sock of [client, upstream]) sock.on('error', drop).on('close', drop);
          client.pipe(upstream).pipe(client);
        });
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => {
          server = s;
          resolve();
        });
      }),
    shut: () =>
      new Promise<void>((resolve) => {
        const s = server;
        server = null;
        for (const sock of sockets) sock.destroy();
        sockets.clear();
        if (!s) return resolve();
        s.close(() => resolve());
      }),
  };
  await door.open();
  return door;
}
