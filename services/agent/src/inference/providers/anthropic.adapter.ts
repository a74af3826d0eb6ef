import type { ModelMessage, ModelTool, ToolCall, Usage } from '../inference.types';
import {
  argumentsObject,
  count,
  extraParams,
  ProviderReplyError,
  toolCallsOf,
  wantsJson,
  type ModelRequest,
  type ProviderAdapter,
} from './provider.types';

export const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_MAX_TOKENS = 1024;
const OWNED = ['model', 'messages', 'system', 'stream', 'temperature', 'top_p', 'max_tokens', 'tools', 'tool_choice'];
/** Anthropic refuses empty text blocks; an empty message (a schedule's default) is sent as this. */
const EMPTY_MESSAGE = '(empty message)';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

interface Turn {
  role: 'user' | 'assistant';
  blocks: Block[];
}

/** A message as content blocks: tool calls become `tool_use`, results a user message of `tool_result`. */
function blocksOf(m: ModelMessage): Turn {
  if (m.role === 'tool') {
    const result: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content || EMPTY_MESSAGE };
    return { role: 'user', blocks: [m.isError ? { ...result, is_error: true } : result] };
  }
  const calls = toolCallsOf(m);
  if (calls) {
    const uses: Block[] = calls.map((c) => ({
      type: 'tool_use',
      id: c.id,
      name: c.name,
      input: argumentsObject(c.arguments),
    }));
    return { role: 'assistant', blocks: m.content ? [{ type: 'text', text: m.content }, ...uses] : uses };
  }
  return { role: m.role, blocks: [{ type: 'text', text: m.content === '' ? EMPTY_MESSAGE : m.content }] };
}

/** Plain text stays a string (text blocks of merged messages joined by a blank line); anything else stays blocks. */
function toWire(t: Turn) {
  const texts = t.blocks.filter((b): b is Extract<Block, { type: 'text' }> => b.type === 'text');
  return { role: t.role, content: texts.length === t.blocks.length ? texts.map((b) => b.text).join('\n\n') : t.blocks };
}

/** The Messages API wants user/assistant alternation starting with the user: merge runs, drop a leading reply. */
function alternate(messages: ModelMessage[]) {
  const out: Turn[] = [];
  for (const m of messages.map(blocksOf)) {
    const last = out.at(-1);
    if (last && last.role === m.role) last.blocks.push(...m.blocks);
    else if (out.length > 0 || m.role === 'user') out.push({ role: m.role, blocks: [...m.blocks] });
  }
  return out.map(toWire);
}

const wireTool = (t: ModelTool) => ({ name: t.name, description: t.description, input_schema: t.parameters });

/** Anthropic has no response_format: JSON output is asked for in the system prompt and checked on the way back. */
function jsonInstruction(format: Record<string, unknown>): string {
  const schema = (format.json_schema as { schema?: unknown } | undefined)?.schema;
  const base = 'Reply with a single JSON object and nothing else: no prose, no code fences.';
  return schema ? `${base} The object must conform to this JSON schema:\n${JSON.stringify(schema)}` : base;
}

function jsonOnly(text: string): string {
  const stripped = text
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i, '$1')
    .trim();
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
  const prompt =
    count(u, 'input_tokens') + count(u, 'cache_creation_input_tokens') + count(u, 'cache_read_input_tokens');
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
    if (req.tools?.length) body.tools = req.tools.map(wireTool);
    if (req.toolChoice)
      body.tool_choice = req.toolChoice === 'required' ? { type: 'any' } : { type: 'tool', name: req.toolChoice.name };
    const sys = system(req);
    if (sys) body.system = sys;
    if (req.temperature !== null && req.temperature !== undefined) body.temperature = req.temperature;
    else if (req.top_p !== null && req.top_p !== undefined) body.top_p = req.top_p;
    return {
      url: `${target.baseUrl.replace(/\/+$/, '')}/messages`,
      headers: {
        'x-api-key': target.apiKey,
        'anthropic-version': ANTHROPIC_VERSION,
        'content-type': 'application/json',
      },
      body,
    };
  },
  parse(data, req) {
    const blocks = (
      data as { content?: { type?: string; text?: unknown; id?: unknown; name?: unknown; input?: unknown }[] } | null
    )?.content;
    const list = Array.isArray(blocks) ? blocks : [];
    const texts = list.filter((b) => b?.type === 'text' && typeof b.text === 'string');
    const calls: ToolCall[] = list
      .filter((b) => b?.type === 'tool_use' && typeof b.name === 'string')
      .map((b, i) => ({
        id: typeof b.id === 'string' ? b.id : `toolu_${i}`,
        name: b.name as string,
        arguments: JSON.stringify(b.input ?? {}),
      }));
    const text = texts.map((b) => b.text as string).join('');
    const used = usage((data as { usage?: unknown }).usage);
    if (calls.length > 0) return { text, usage: used, toolCalls: calls };
    if (texts.length === 0) throw new ProviderReplyError('the reply has no text content');
    const reply = { text: wantsJson(req.response_format) ? jsonOnly(text) : text, usage: used };
    return (data as { stop_reason?: unknown }).stop_reason === 'max_tokens' ? { ...reply, truncated: true } : reply;
  },
};
