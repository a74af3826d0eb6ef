/** The voice app, with transcripts of two agents in the fuzz owner's organization and one in another's. */
import { randomUUID } from 'node:crypto';
import request from 'supertest';

import { chatItems, ingestBody, livekitReport, startVoiceApp } from '../../services/voice/test/helpers';
import { serveTarget, type Target } from './target-kit';

const AGENTS = ['fuzz-agent-1', 'fuzz-agent-2'];

/** The voice app on its own database, listening on a local port. */
export async function startVoiceTarget(): Promise<Target> {
  const t = await startVoiceApp();
  return serveTarget(t, async ({ key, otherKey }) => {
    const sessions: string[] = [];
    const store = async (k: string, i: number) => {
      const start = Date.now() - (i + 1) * 3_600_000;
      const body =
        i % 2 === 0
          ? ingestBody({ agentId: AGENTS[i % 2] }, start)
          : {
              sessionId: randomUUID(),
              agentId: AGENTS[i % 2],
              sessionReport: livekitReport(start, start + 30_000, chatItems(start)),
            };
      const res = await request(t.app).post('/v1/transcripts').set('x-api-key', k).send(body);
      if (res.status !== 201) throw new Error(`transcript fixture answered ${res.status}: ${res.text}`);
      return res.body.transcript.sessionId as string;
    };
    for (let i = 0; i < 6; i++) sessions.push(await store(key, i));
    const othersSession = await store(otherKey, 0);
    return {
      // Reads only: every operation with a path id is a GET.
      pathIds: (_op, param) =>
        param === 'sessionId' ? [...sessions, othersSession] : param === 'agentId' ? AGENTS : [],
      known: {
        sessionId: [...sessions, othersSession, randomUUID()],
        agentId: AGENTS,
        chatHistory: [chatItems(Date.now() - 60_000)],
        sessionReport: [livekitReport(Date.now() - 60_000, Date.now(), chatItems(Date.now() - 60_000))],
        sort: ['asc', 'desc'],
        from: [new Date(Date.now() - 86_400_000).toISOString()],
        to: [new Date().toISOString()],
      },
    };
  });
}
