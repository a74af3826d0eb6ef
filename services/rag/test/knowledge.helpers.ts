/** The real rag app with its knowledge base: the real agent (credentials) and OCR services on loopback ports. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes, type Connection } from '@platform/db';
import { listen, type RunningServer } from '@platform/http';
import { createOutboundClient } from '@platform/outbound';
import { createVectorStores } from '@platform/retrieval';
import { captureLogger, createTestDatabases, uniqueName, type TestDatabases } from '@platform/testing';

import { startAgentApp, type AgentTestApp } from '../../agent/test/helpers';
import { startOcrApp, type OcrTestApp } from '../../ocr/test/support/helpers';
import { createApp } from '../src/app';
import { createRagConfig, INTERNAL_SECRET } from './helpers';

export const ALICE = { user_id: 'kb-alice', org_id: 'kb-acme' };
export const BOB = { user_id: 'kb-bob', org_id: 'kb-globex' };

export interface KnowledgeTestApp {
  app: Express;
  /** Another replica of the rag service: same services, its own memory (and, given one, its own connection). */
  replica(db?: Connection): Express;
  dbs: TestDatabases;
  lines: string[];
  alice: string;
  bob: string;
  vectors: ReturnType<typeof createVectorStores>;
  /** A RAG configuration of the key's owner; `over` replaces fields. */
  createRag(key: string, over?: Record<string, unknown>): Promise<string>;
  /** An OpenAI-protocol credential of `owner` in the agent service, pointing at `baseUrl`. */
  credential(owner: typeof ALICE, baseUrl: string): Promise<string>;
  close(): Promise<void>;
}

export interface KnowledgeTestOptions {
  /** Hosts (host:port) the rag app may reach beside the agent and OCR services, e.g. an embeddings stand-in. */
  allowHosts?: string[];
  /** The graph service's URL (default: a closed port, i.e. the graph is down). */
  graphUrl?: string;
}

/** A port nothing listens on: the graph (or any service) down. */
export const CLOSED_URL = 'http://127.0.0.1:9';

export async function startKnowledgeApp(opts: KnowledgeTestOptions = {}): Promise<KnowledgeTestApp> {
  const agent: AgentTestApp = await startAgentApp({ internalSecret: INTERNAL_SECRET });
  const agentServer: RunningServer = await listen(agent.app, 0, undefined, '127.0.0.1');
  const ocr: OcrTestApp = await startOcrApp({ internalSecret: INTERNAL_SECRET });
  const ocrServer: RunningServer = await listen(ocr.app, 0, undefined, '127.0.0.1');
  const dbs = await createTestDatabases('ragkb');
  const { logger, lines } = captureLogger('rag');
  const vectorDir = mkdtempSync(join(tmpdir(), 'rag-vectors-'));
  const uploadDir = mkdtempSync(join(tmpdir(), 'rag-uploads-'));
  const vectors = createVectorStores({ uri: vectorDir, logger });
  const hosts = [`127.0.0.1:${agentServer.port}`, `127.0.0.1:${ocrServer.port}`, ...(opts.allowHosts ?? [])];
  const graphUrl = opts.graphUrl ?? CLOSED_URL;
  hosts.push(new URL(graphUrl).host);
  const outbound = createOutboundClient({ allowHosts: hosts.join(',') });
  const deps = {
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    outbound,
    agent: { baseUrl: `http://127.0.0.1:${agentServer.port}`, secret: INTERNAL_SECRET, timeoutMs: 5_000 },
    internalSecret: INTERNAL_SECRET,
    graph: { baseUrl: graphUrl, secret: INTERNAL_SECRET, timeoutMs: 3_000 },
    ocr: { baseUrl: `http://127.0.0.1:${ocrServer.port}`, secret: INTERNAL_SECRET, timeoutMs: 30_000 },
    vectors,
    embeddingTimeoutMs: 5_000,
    uploadDir,
    readiness: { mongodb: () => pingMongo(dbs.conn) },
  };
  const app = createApp(deps);
  await syncIndexes(dbs.conn);
  const agentKeys = new Map<string, string>();
  return {
    app,
    replica: (db = dbs.conn) => createApp({ ...deps, db }),
    dbs,
    lines,
    vectors,
    alice: await dbs.mintKey(ALICE),
    bob: await dbs.mintKey(BOB),
    createRag: (key, over = {}) =>
      createRagConfig(app, key, { collection_name: uniqueName('kb').toLowerCase(), ...over }),
    async credential(owner, baseUrl) {
      const key = agentKeys.get(owner.user_id) ?? (await agent.dbs.mintKey(owner));
      agentKeys.set(owner.user_id, key);
      const res = await request(agent.app)
        .post('/v3/providers/credentials')
        .set('x-api-key', key)
        .send({
          name: 'embeddings',
          provider_id: 'openai',
          credentials: { api_key: 'sk-kb-test-1234567890', base_url: baseUrl },
        });
      if (res.status !== 201) throw new Error(`credential not created: ${res.status} ${res.text}`);
      return res.body.credential_id as string;
    },
    async close() {
      outbound.close();
      await vectors.close();
      await ocrServer.close(0);
      await ocr.close();
      await agentServer.close(0);
      await agent.close();
      await dbs.cleanup();
      rmSync(vectorDir, { recursive: true, force: true });
      rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}

/** `POST /v3/train/{kind}/` with `bytes` as the file and `fields` beside it. */
export function trainFile(
  app: Express,
  key: string,
  ragId: string,
  kind: string,
  bytes: Buffer | Uint8Array,
  opts: { filename?: string; contentType?: string; fields?: Record<string, string> } = {},
) {
  let req = request(app).post(`/v3/train/${kind}/?rag_id=${ragId}`).set('x-api-key', key);
  for (const [name, value] of Object.entries(opts.fields ?? {})) req = req.field(name, value);
  return req.attach('file', Buffer.from(bytes), {
    filename: opts.filename ?? `doc.${kind}`,
    contentType: opts.contentType ?? 'application/octet-stream',
  });
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const b of data) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A zip archive of `files` (deflated), with its central directory: enough for any zip reader. */
export function zipOf(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const raw = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const packed = deflateRawSync(raw);
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A minimal DOCX whose body holds one paragraph per entry of `paragraphs`. */
export function docxOf(paragraphs: string[]): Buffer {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escape(p)}</w:t></w:r></w:p>`).join('');
  return zipOf({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    'word/document.xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      `<w:body>${body}</w:body></w:document>`,
  });
}
