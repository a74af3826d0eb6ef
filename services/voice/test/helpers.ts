import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';

import { createApiKeyAuth, createApiKeyRepository } from '@platform/auth';
import { pingMongo, syncIndexes } from '@platform/db';
import { captureLogger, createTestDatabases, type TestDatabases } from '@platform/testing';

import { createApp } from '../src/app';

export interface VoiceTestApp {
  app: Express;
  dbs: TestDatabases;
  lines: string[];
  close(): Promise<void>;
}

/** The real voice service app on a fresh database of the real server. */
export async function startVoiceApp(opts: { clock?: () => Date; mongoUri?: string } = {}): Promise<VoiceTestApp> {
  const dbs = await createTestDatabases('voice', opts.mongoUri);
  const { logger, lines } = captureLogger('voice');
  const app = createApp({
    logger,
    db: dbs.conn,
    auth: createApiKeyAuth({ keys: createApiKeyRepository(dbs.authConn), cacheTtlMs: 30_000 }),
    readiness: { mongodb: () => pingMongo(dbs.conn) },
    clock: opts.clock,
  });
  await syncIndexes(dbs.conn);
  return { app, dbs, lines, close: () => dbs.cleanup() };
}

export const DAY = 86_400_000;
export const iso = (ms: number) => new Date(ms).toISOString();

/** A LiveKit-style session report (`SessionReport.to_dict()`): times in epoch seconds. */
export function livekitReport(startMs: number, endMs: number, items: object[], reason = 'participant_disconnected') {
  return {
    job_id: 'AJ_1',
    room_id: 'RM_1',
    room: 'call-room-1',
    started_at: startMs / 1000,
    duration: (endMs - startMs) / 1000,
    timestamp: endMs / 1000,
    events: [{ type: 'close', reason, created_at: endMs / 1000 }],
    chat_history: { items },
    usage: null,
  };
}

/** The four checked item kinds and one the service does not know, at LiveKit's shape. */
export function chatItems(startMs: number): Record<string, unknown>[] {
  const at = (s: number) => startMs / 1000 + s;
  return [
    {
      id: 'item_1',
      type: 'message',
      role: 'assistant',
      content: ['Hello, how can I help?'],
      interrupted: false,
      created_at: at(1),
    },
    {
      id: 'item_2',
      type: 'message',
      role: 'user',
      content: ['Book a table'],
      interrupted: false,
      created_at: at(3),
      metrics: { e2e_latency: 0.4 },
    },
    { id: 'item_3', type: 'function_call', call_id: 'c1', name: 'book', arguments: '{"n":2}', created_at: at(4) },
    {
      id: 'item_4',
      type: 'function_call_output',
      call_id: 'c1',
      name: 'book',
      output: 'ok',
      is_error: false,
      created_at: at(5),
    },
    { id: 'item_5', type: 'agent_handoff', old_agent_id: 'a', new_agent_id: 'b', created_at: at(6) },
    {
      id: 'item_6',
      type: 'agent_config_update',
      tools_added: ['x'],
      nested: [[1, 2], { $weird: 'kept' }],
      created_at: at(7),
    },
    { id: 'item_7', type: 'message', role: 'assistant', content: ['Done.'], created_at: at(8) },
  ];
}

/** An ingest body with explicit fields. */
export function ingestBody(over: Record<string, unknown> = {}, startMs = Date.now() - 3_600_000) {
  return {
    sessionId: randomUUID(),
    agentId: 'agent-1',
    roomName: 'room-a',
    closeReason: 'user_hangup',
    startedAt: iso(startMs),
    endedAt: iso(startMs + 60_000),
    chatHistory: chatItems(startMs),
    sessionReport: { summary: { intent: 'booking' } },
    ...over,
  };
}

export const ingest = (app: Express, key: string, body: unknown) =>
  request(app)
    .post('/v1/transcripts')
    .set('x-api-key', key)
    .send(body as object);

/** Keys of two users of one organization and of a user of another. */
export async function orgKeys(t: VoiceTestApp): Promise<{ alice: string; bob: string; globex: string }> {
  return {
    alice: await t.dbs.mintKey({ user_id: 'alice', org_id: 'acme' }),
    bob: await t.dbs.mintKey({ user_id: 'bob', org_id: 'acme' }),
    globex: await t.dbs.mintKey({ user_id: 'carol', org_id: 'globex' }),
  };
}
