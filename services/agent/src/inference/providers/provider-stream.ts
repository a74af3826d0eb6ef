import type { Logger } from '@platform/logger';
import { OutboundError, type OutboundClient, type OutboundStreamResponse } from '@platform/outbound';
import { annotate, inSpan } from '@platform/tracing';

import type { ModelReply, Usage } from '../inference.types';
import { providerError, providerMessage } from './provider-client';
import { providerAttributes, usageAttributes } from './provider-spans';
import { ProviderReplyError, type ModelRequest, type ProviderAdapter, type ProviderTarget } from './provider.types';
import { sseEvents } from './sse';
import { anthropicPiece, openAiPiece, type StreamPiece } from './stream-events';

export interface ProviderStreamerDeps {
  outbound: OutboundClient;
  /** Time limit of the whole streamed call, body included. */
  timeoutMs: number;
  logger: Logger;
}

/** How the caller follows a streamed call: its abort signal and what to do with each piece of text. */
export interface StreamHandlers {
  signal: AbortSignal;
  onText(text: string): void;
}

const MAX_STREAM_BYTES = 10 * 1024 * 1024;
const MAX_ERROR_BYTES = 64 * 1024;

async function readAll(body: AsyncIterable<Buffer>, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    chunks.push(c);
    size += c.length;
    if (size >= cap) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Calls a provider in streaming mode (OpenAI protocol `stream: true` SSE, Anthropic Messages `stream: true` SSE) and
 * hands each text delta over as it arrives. No retries: a failure before the first delta is a 502 like chat's, and
 * one after it ends the stream. A provider that ignores `stream` and answers JSON is read as one delta.
 */
export function createProviderStreamer(deps: ProviderStreamerDeps) {
  const fail = (err: unknown, apiKey: string): Error => {
    if (err instanceof OutboundError)
      return providerError(err.code === 'TIMEOUT' ? `timeout after ${deps.timeoutMs} ms` : err.message, apiKey);
    if (err instanceof ProviderReplyError) return providerError(err.message, apiKey);
    return err as Error;
  };

  async function open(
    adapter: ProviderAdapter,
    target: ProviderTarget,
    req: ModelRequest,
    signal: AbortSignal,
  ): Promise<OutboundStreamResponse> {
    const call = adapter.build(target, req);
    const body: Record<string, unknown> = { ...call.body, stream: true };
    if (target.providerId === 'openai') body.stream_options = { include_usage: true };
    const res = await deps.outbound.stream({
      ...call,
      body,
      method: 'POST',
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: MAX_STREAM_BYTES,
      maxRedirects: 0,
      signal,
    });
    if (res.status >= 200 && res.status < 300) return res;
    const text = await readAll(res.body, MAX_ERROR_BYTES).catch(() => '');
    res.cancel();
    const message = providerMessage({
      status: res.status,
      headers: res.headers,
      body: Buffer.from(text),
      text,
      data: jsonOf(text),
      url: res.url,
    });
    deps.logger.warn('LLM provider stream failed', {
      provider: target.providerId,
      model: req.model,
      host: new URL(call.url).host,
      status: res.status,
    });
    throw providerError(`${res.status} ${message}`, target.apiKey, res.status);
  }

  async function follow(
    res: OutboundStreamResponse,
    adapter: ProviderAdapter,
    handlers: StreamHandlers,
  ): Promise<ModelReply> {
    let text = '';
    let usage: Usage | null = null;
    let truncated = false;
    for await (const e of sseEvents(res.body)) {
      const piece: StreamPiece = adapter.protocol === 'openai' ? openAiPiece(e.data) : anthropicPiece(e.event, e.data);
      if (piece.error) throw new ProviderReplyError(piece.error);
      if (piece.toolCall) throw new ProviderReplyError('the model asked for a tool call while streaming its answer');
      if (piece.usage) usage = piece.usage;
      if (piece.truncated) truncated = true;
      if (piece.outputTokens && usage) {
        usage = {
          ...usage,
          completion_tokens: piece.outputTokens,
          total_tokens: usage.prompt_tokens + piece.outputTokens,
        };
      }
      if (piece.text) {
        text += piece.text;
        handlers.onText(piece.text);
      }
      if (piece.done) break;
    }
    res.cancel();
    if (text === '') throw new ProviderReplyError('the streamed reply has no text content');
    return truncated ? { text, usage, truncated } : { text, usage };
  }

  return {
    async stream(
      adapter: ProviderAdapter,
      target: ProviderTarget,
      req: ModelRequest,
      handlers: StreamHandlers,
    ): Promise<ModelReply> {
      const attributes = { ...providerAttributes(target, req, target.baseUrl), 'gen_ai.request.stream': true };
      return inSpan('provider call', { attributes }, async () => {
        const reply = await streamCall(adapter, target, req, handlers);
        annotate(usageAttributes(reply));
        return reply;
      });
    },
  };

  async function streamCall(
    adapter: ProviderAdapter,
    target: ProviderTarget,
    req: ModelRequest,
    handlers: StreamHandlers,
  ): Promise<ModelReply> {
    try {
      const res = await open(adapter, target, req, handlers.signal);
      if (/\bjson\b/i.test(res.headers['content-type'] ?? '')) {
        const reply = adapter.parse(jsonOf(await readAll(res.body, MAX_STREAM_BYTES)), req);
        if (reply.toolCalls?.length)
          throw new ProviderReplyError('the model asked for a tool call while streaming its answer');
        handlers.onText(reply.text);
        return reply;
      }
      return await follow(res, adapter, handlers);
    } catch (err) {
      throw fail(err, target.apiKey);
    }
  }
}

export type ProviderStreamer = ReturnType<typeof createProviderStreamer>;
