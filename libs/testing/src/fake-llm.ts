import type { ServerResponse } from 'node:http';

import { writeStream, type ScriptedStream, type StreamState } from './fake-llm-stream';
import { startLocalServer, type LocalServer, type ReceivedRequest } from './local-server';

export type { ScriptedStream };

/** A scripted answer; `hang` accepts the request and never answers. */
export type Scripted = { status?: number; headers?: Record<string, string>; body?: unknown } | ScriptedStream | 'hang';

export interface FakeLlm extends LocalServer {
  /** The base_url to store on a credential (`.../v1`). */
  baseUrl: string;
  /** Answers for the next requests, in order; once used up, requests get the default echo reply. */
  script(...replies: Scripted[]): void;
  /** The JSON bodies received, in order. */
  bodies(): Record<string, unknown>[];
  /** Streamed deltas written so far. */
  sentDeltas(): number;
  /** Streams whose client closed the connection before the stream finished. */
  abortedStreams(): number;
  /** Resumes the streams held by `holdAfter`. */
  release(): void;
}

/** A scripted OpenAI-protocol chat completion answering `content`. */
export const completion = (content: string): Scripted => ({
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  },
});

const lastUserText = (json: unknown): string => {
  const messages = (json as { messages?: { role: string; content: string }[] } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
};

/** The provider's reply when nothing is scripted: echoes the last user message, with token usage. */
function echo(protocol: 'openai' | 'anthropic', req: ReceivedRequest): unknown {
  const text = `echo: ${lastUserText(req.json)}`;
  if (protocol === 'openai') {
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    };
  }
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 20, output_tokens: 5, cache_read_input_tokens: 3 },
  };
}

/**
 * A local stand-in for an LLM provider speaking the OpenAI chat-completions protocol (POST /v1/chat/completions)
 * or Anthropic's Messages API (POST /v1/messages). It records what it was sent.
 */
export async function startFakeLlm(protocol: 'openai' | 'anthropic'): Promise<FakeLlm> {
  const queue: Scripted[] = [];
  const state: StreamState = { sent: 0, aborted: 0, waiting: [] };
  const path = protocol === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const server = await startLocalServer((req, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== path) return res.writeHead(404).end();
    const next = queue.shift();
    if (next === 'hang') return;
    if (next && 'stream' in next) return writeStream(protocol, res, next, state);
    // Asked to stream with nothing scripted: the echo in two deltas.
    if (!next && (req.json as { stream?: unknown } | undefined)?.stream === true) {
      return writeStream(protocol, res, { stream: ['echo: ', lastUserText(req.json)] }, state);
    }
    const reply = next ?? { body: echo(protocol, req) };
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body ?? {}));
  });
  return Object.assign(server, {
    baseUrl: `${server.url}/v1`,
    script: (...replies: Scripted[]) => void queue.push(...replies),
    bodies: () => server.requests.map((r) => r.json as Record<string, unknown>),
    sentDeltas: () => state.sent,
    abortedStreams: () => state.aborted,
    release: () => state.waiting.splice(0).forEach((resume) => resume()),
  });
}
