import type { Usage } from '../inference.types';
import { count } from './provider.types';

/** What one provider event means for the answer: a piece of text, token usage, the end, a failure. */
export interface StreamPiece {
  text?: string;
  usage?: Usage;
  /** Output tokens only (Anthropic's message_delta), added to what message_start counted. */
  outputTokens?: number;
  toolCall?: boolean;
  /** The answer was cut at the token limit. */
  truncated?: boolean;
  error?: string;
  done?: boolean;
}

const parse = (data: string): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(data);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

const errorText = (e: unknown): string =>
  typeof e === 'string'
    ? e
    : typeof (e as { message?: unknown } | null)?.message === 'string'
      ? (e as { message: string }).message
      : 'stream error';

/** OpenAI chat-completions chunks: `choices[0].delta.content`, a usage-only last chunk, `[DONE]`. */
export function openAiPiece(data: string): StreamPiece {
  if (data.trim() === '[DONE]') return { done: true };
  const o = parse(data);
  if (!o) return {};
  if (o.error) return { error: errorText(o.error) };
  const piece: StreamPiece = {};
  const choice = (
    o.choices as { delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[] | undefined
  )?.[0];
  const delta = choice?.delta;
  if (choice?.finish_reason === 'length') piece.truncated = true;
  if (typeof delta?.content === 'string' && delta.content !== '') piece.text = delta.content;
  if (Array.isArray(delta?.tool_calls) && delta.tool_calls.length > 0) piece.toolCall = true;
  const u = o.usage as Record<string, unknown> | null | undefined;
  if (u && typeof u === 'object') {
    const prompt = count(u, 'prompt_tokens');
    const completion = count(u, 'completion_tokens');
    piece.usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: count(u, 'total_tokens') || prompt + completion,
    };
  }
  return piece;
}

/** Anthropic Messages events: message_start (input usage), content_block_delta text_delta, message_delta, message_stop, error. */
export function anthropicPiece(event: string, data: string): StreamPiece {
  const o = parse(data);
  const type = typeof o?.type === 'string' ? o.type : event;
  if (type === 'error') return { error: errorText(o?.error) };
  if (type === 'message_stop') return { done: true };
  if (type === 'message_start') {
    const u = (o?.message as { usage?: Record<string, unknown> } | undefined)?.usage;
    const prompt =
      count(u, 'input_tokens') + count(u, 'cache_creation_input_tokens') + count(u, 'cache_read_input_tokens');
    const completion = count(u, 'output_tokens');
    return { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
  }
  if (type === 'content_block_start')
    return (o?.content_block as { type?: unknown } | undefined)?.type === 'tool_use' ? { toolCall: true } : {};
  if (type === 'content_block_delta') {
    const delta = o?.delta as { type?: unknown; text?: unknown } | undefined;
    return delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== ''
      ? { text: delta.text }
      : {};
  }
  if (type === 'message_delta') {
    const outputTokens = count(o?.usage as Record<string, unknown> | undefined, 'output_tokens');
    const cut = (o?.delta as { stop_reason?: unknown } | undefined)?.stop_reason === 'max_tokens';
    return cut ? { outputTokens, truncated: true } : { outputTokens };
  }
  return {};
}
