import type { ChatMessage, Usage } from '../inference.types';
import { count, extraParams, ProviderReplyError, wantsJson, type ModelRequest, type ProviderAdapter } from './provider.types';

export const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_MAX_TOKENS = 1024;
const OWNED = ['model', 'messages', 'system', 'stream', 'temperature', 'top_p', 'max_tokens'];
/** Anthropic refuses empty text blocks; an empty message (a schedule's default) is sent as this. */
const EMPTY_MESSAGE = '(empty message)';

/** The Messages API wants user/assistant alternation starting with the user: merge runs, drop a leading reply. */
function alternate(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const content = m.content === '' ? EMPTY_MESSAGE : m.content;
    const last = out.at(-1);
    if (last && last.role === m.role) last.content = `${last.content}\n\n${content}`;
    else if (out.length > 0 || m.role === 'user') out.push({ role: m.role, content });
  }
  return out;
}

/** Anthropic has no response_format: JSON output is asked for in the system prompt and checked on the way back. */
function jsonInstruction(format: Record<string, unknown>): string {
  const schema = (format.json_schema as { schema?: unknown } | undefined)?.schema;
  const base = 'Reply with a single JSON object and nothing else: no prose, no code fences.';
  return schema ? `${base} The object must conform to this JSON schema:\n${JSON.stringify(schema)}` : base;
}

function jsonOnly(text: string): string {
  const stripped = text.trim().replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i, '$1').trim();
  try {
    JSON.parse(stripped);
  } catch {
    throw new ProviderReplyError('the reply is not valid JSON although the agent asks for JSON');
  }
  return stripped;
}

function usage(raw: unknown): Usage | null {
  if (!raw || typeof raw !== 'object') return null;
  const u = raw as Record<string, unknown>;
  const prompt = count(u, 'input_tokens') + count(u, 'cache_creation_input_tokens') + count(u, 'cache_read_input_tokens');
  const completion = count(u, 'output_tokens');
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function system(req: ModelRequest): string {
  if (!wantsJson(req.response_format)) return req.system;
  return [req.system, jsonInstruction(req.response_format!)].filter(Boolean).join('\n\n');
}

/**
 * Anthropic Messages API (`POST {base_url}/messages`, `x-api-key`, `anthropic-version: 2023-06-01`). The system
 * prompt is the top-level `system`; `max_tokens` (required there) comes from additional_model_params or is 1024.
 * Current Claude models refuse `temperature` and `top_p` together, so `top_p` goes only when temperature is unset.
 */
export const anthropicAdapter: ProviderAdapter = {
  protocol: 'anthropic',
  build(target, req) {
    const params = extraParams(req.params, OWNED);
    const maxTokens = req.params.max_tokens;
    const body: Record<string, unknown> = {
      ...params,
      model: req.model,
      max_tokens: typeof maxTokens === 'number' && maxTokens > 0 ? maxTokens : DEFAULT_MAX_TOKENS,
      messages: alternate(req.messages),
      stream: false,
    };
    const sys = system(req);
    if (sys) body.system = sys;
    if (req.temperature !== null && req.temperature !== undefined) body.temperature = req.temperature;
    else if (req.top_p !== null && req.top_p !== undefined) body.top_p = req.top_p;
    return {
      url: `${target.baseUrl.replace(/\/+$/, '')}/messages`,
      headers: { 'x-api-key': target.apiKey, 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json' },
      body,
    };
  },
  parse(data, req) {
    const blocks = (data as { content?: { type?: string; text?: unknown }[] } | null)?.content;
    const texts = Array.isArray(blocks) ? blocks.filter((b) => b?.type === 'text' && typeof b.text === 'string') : [];
    if (texts.length === 0) throw new ProviderReplyError('the reply has no text content');
    const text = texts.map((b) => b.text as string).join('');
    return { text: wantsJson(req.response_format) ? jsonOnly(text) : text, usage: usage((data as { usage?: unknown }).usage) };
  },
};
