/** The voice app, with transcripts of two agents in the fuzz owner's organization and one in another's. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { listen, type RunningServer } from '@platform/http';
import { chatItems, ingestBody, livekitReport, startVoiceApp } from '../../services/voice/test/helpers';
import { OTHER, OWNER, errorLogReader, openapiOf, type Target } from './target-kit';

const AGENTS = ['fuzz-agent-1', 'fuzz-agent-2'];

/** The voice app on its own database, listening on a local port. */
export async function startVoiceTarget(): Promise<Target> {
  const t = await startVoiceApp();
  let server: RunningServer | undefined;
  try {
    const key = await t.dbs.mintKey(OWNER);
    const otherKey = await t.dbs.mintKey(OTHER);
    const sessions: string[] = [];
    const store = async (k: string, i: number) => {
      const start = Date.now() - (i + 1) * 3_600_000;
      const body = i % 2 === 0 ? ingestBody({ agentId: AGENTS[i % 2] }, start) : { sessionId: randomUUID(), agentId: AGENTS[i % 2], sessionReport: livekitReport(start, start + 30_000, chatItems(start)) };
      const res = await request(t.app).post('/v1/transcripts').set('x-api-key', k).send(body);
      if (res.status !== 201) throw new Error(`transcript fixture answered ${res.status}: ${res.text}`);
      return res.body.transcript.sessionId as string;
    };
    for (let i = 0; i < 6; i++) sessions.push(await store(key, i));
    const othersSession = await store(otherKey, 0);
    server = await listen(t.app, 0, undefined, '127.0.0.1');
    const running = server;
    return {
      app: t.app,
      port: server.port,
      doc: await openapiOf(t.app),
      ctx: {
        apiKey: key,
        otherApiKey: otherKey,
        newErrorLogs: errorLogReader(t.lines),
        // Reads only: every operation with a path id is a GET.
        pathIds: (_op, param) => (param === 'sessionId' ? [...sessions, othersSession] : param === 'agentId' ? AGENTS : []),
        known: {
          sessionId: [...sessions, othersSession, randomUUID()],
          agentId: AGENTS,
          chatHistory: [chatItems(Date.now() - 60_000)],
          sessionReport: [livekitReport(Date.now() - 60_000, Date.now(), chatItems(Date.now() - 60_000))],
          sort: ['asc', 'desc'],
          from: [new Date(Date.now() - 86_400_000).toISOString()],
          to: [new Date().toISOString()],
        },
      },
      close: async () => {
        await running.close(1_000);
        await t.close();
      },
    };
  } catch (err) {
    await server?.close(0);
    await t.close();
    throw err;
  }
}
