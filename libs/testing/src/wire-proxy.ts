import { connect, createServer, type Server, type Socket } from 'node:net';

/** OP_MSG, the wire protocol message every command of a current driver travels in. */
const OP_MSG = 2013;

/** Where a cut falls: after the server answered the command (the reply is lost), or before it reaches the server. */
export type CutMode = 'after-server' | 'before-server';

interface Armed {
  command: string;
  collection: string;
  mode: CutMode;
  done: () => void;
}

/** The command name and its collection (the first field's string value) of an OP_MSG whose first section is its body. */
export function commandOf(msg: Buffer): { name: string; collection: string | null } | null {
  if (msg.length < 27 || msg.readInt32LE(12) !== OP_MSG || msg[20] !== 0) return null;
  const type = msg[25];
  const keyEnd = msg.indexOf(0, 26);
  if (keyEnd < 0) return null;
  const name = msg.toString('utf8', 26, keyEnd);
  if (type !== 0x02) return { name, collection: null };
  const len = msg.readInt32LE(keyEnd + 1);
  return { name, collection: msg.toString('utf8', keyEnd + 5, keyEnd + 5 + len - 1) };
}

/** Splits a byte stream into whole wire messages (each starts with its int32 length); keeps the rest. */
function framer(onMessage: (msg: Buffer) => boolean) {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const len = pending.readInt32LE(0);
      if (pending.length < len) return;
      const msg = pending.subarray(0, len);
      pending = pending.subarray(len);
      if (!onMessage(msg)) return;
    }
  };
}

/**
 * A TCP proxy in front of a MongoDB-protocol server that passes everything through, except that, once armed, it cuts
 * the connection carrying the next matching command: either after the server answered it (the write is stored, the
 * client never hears so: what a primary stepping down after applying a write looks like) or before it reaches the
 * server (nothing stored). Either way the client sees its socket closed.
 */
export async function startWireProxy(target: { host: string; port: number }) {
  let armed: Armed | null = null;
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    let cutReplyTo: number | null = null;
    let onCut: (() => void) | null = null;
    client.on(
      'data',
      framer((msg) => {
        const cmd = commandOf(msg);
        const a = armed;
        if (a && cmd && cmd.name === a.command && cmd.collection === a.collection) {
          armed = null;
          if (a.mode === 'before-server') {
            cut();
            a.done();
            return false;
          }
          cutReplyTo = msg.readInt32LE(4);
          onCut = a.done;
        }
        upstream.write(msg);
        return true;
      }),
    );
    upstream.on(
      'data',
      framer((msg) => {
        if (cutReplyTo !== null && msg.readInt32LE(8) === cutReplyTo) {
          cut();
          onCut?.();
          return false;
        }
        client.write(msg);
        return true;
      }),
    );
    for (const s of [client, upstream]) {
      s.on('error', () => cut());
      s.on('close', () => {
        sockets.delete(s);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;

  return {
    port,
    /** Cuts the connection of the next `command` on `collection` as `mode` says; resolves once it has. */
    cutNext(command: string, collection: string, mode: CutMode): Promise<void> {
      return new Promise((resolve) => {
        armed = { command, collection, mode, done: resolve };
      });
    },
    /** Stops: open connections are closed and new ones refused (the server gone for longer than a retry waits). */
    async close(): Promise<void> {
      for (const s of sockets) s.destroy();
      if (!server.listening) return;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type WireProxy = Awaited<ReturnType<typeof startWireProxy>>;
