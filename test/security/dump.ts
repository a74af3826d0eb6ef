/** A database dump as an operator would take one: every document of every collection, read raw through the driver. */
import type { TestDatabases } from '@platform/testing';

import type { SecurityWorld } from './worlds';

export interface DumpedDoc {
  db: string;
  collection: string;
  /** The document as extended JSON text (ObjectIds as hex, dates as ISO strings, binary as base64). */
  text: string;
  doc: Record<string, unknown>;
}

export async function dumpDatabases(dbs: TestDatabases[]): Promise<DumpedDoc[]> {
  const out: DumpedDoc[] = [];
  for (const d of dbs) {
    for (const conn of [d.conn, d.authConn]) {
      const db = conn.db!;
      for (const { name } of await db.listCollections().toArray()) {
        for (const doc of await db.collection(name).find({}).toArray()) {
          out.push({
            db: db.databaseName,
            collection: name,
            text: JSON.stringify(doc),
            doc: doc as Record<string, unknown>,
          });
        }
      }
    }
  }
  return out;
}

/** The secrets and API keys of `world` found in plaintext in its databases (`db.collection: prefix…`). */
export async function plaintextInDump(world: SecurityWorld): Promise<string[]> {
  const dump = await dumpDatabases(world.dbs);
  if (dump.length === 0) return ['the dump is empty'];
  const secrets = [...world.secrets, world.keys.A, world.keys.B, world.keys.C];
  return dump.flatMap((d) =>
    secrets.filter((s) => d.text.includes(s)).map((s) => `${d.db}.${d.collection}: ${s.slice(0, 12)}…`),
  );
}
