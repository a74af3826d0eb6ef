import type { ModelMessage, ModelTool, ToolCall, Usage } from '../inference.types';
import { count, extraParams, ProviderReplyError, wantsJson, type ProviderAdapter } from './provider.types';

/** Body fields the service owns; `additional_model_params` cannot override them. */
const OWNED = ['model', 'messages', 'stream', 'temperature', 'top_p', 'response_format', 'tools', 'tool_choice'];

/** A message in the protocol's shape: tool calls as `tool_calls`, results as `role: "tool"`. */
function wireMessage(m: ModelMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if ('toolCalls' in m) {
    const calls = m.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
    return { role: 'assistant', content: m.content || null, tool_calls: calls };
  }
  return { role: m.role, content: m.content };
}

const wireTool = (t: ModelTool) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.parameters },
});

type WireCall = { id?: unknown; function?: { name?: unknown; arguments?: unknown } };

function toolCalls(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  return (raw as WireCall[])
    .filter((c) => typeof c?.function?.name === 'string')
    .map((c, i) => ({
      id: typeof c.id === 'string' ? c.id : `call_${i}`,
      name: c.function!.name as string,
      arguments:
        typeof c.function!.arguments === 'string' ? c.function!.arguments : JSON.stringify(c.function!.arguments ?? {}),
    }));
}

function text(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('');
    return parts === '' ? null : parts;
  }
  return null;
}

function usage(raw: unknown): Usage | null {
  if (!raw || typeof raw !== 'object') return null;
  const u = raw as Record<string, unknown>;
  const prompt = count(u, 'prompt_tokens');
  const completion = count(u, 'completion_tokens');
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(u, 'total_tokens') || prompt + completion,
  };
}

/**
 * OpenAI chat completions (`POST {base_url}/chat/completions`, `Authorization: Bearer`), which OpenAI, Groq,
 * Together, vLLM, Ollama and llama.cpp's server all speak. `response_format` goes through as the agent stores it,
 * except `{type: "text"}`, which is the default and is left out for servers that do not know the field.
 */
export const openAiAdapter: ProviderAdapter = {
  protocol: 'openai',
  build(target, req) {
    const params = extraParams(req.params, OWNED);
    const messages = [
      ...(req.system ? [{ role: 'system', content: req.system }] : []),
      ...req.messages.map(wireMessage),
    ];
    const body: Record<string, unknown> = { ...params, model: req.model, messages, stream: false };
    if (req.tools?.length) body.tools = req.tools.map(wireTool);
    if (req.toolChoice)
      body.tool_choice =
        req.toolChoice === 'required' ? 'required' : { type: 'function', function: { name: req.toolChoice.name } };
    if (req.temperature !== null && req.temperature !== undefined) body.temperature = req.temperature;
    if (req.top_p !== null && req.top_p !== undefined) body.top_p = req.top_p;
    if (wantsJson(req.response_format)) body.response_format = req.response_format;
    return {
      url: `${target.baseUrl.replace(/\/+$/, '')}/chat/completions`,
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      body,
    };
  },
  parse(data) {
    const choice = (
      data as {
        choices?: {
          message?: { content?: unknown; refusal?: unknown; tool_calls?: unknown };
          finish_reason?: unknown;
        }[];
      } | null
    )?.choices?.[0];
    const content = text(choice?.message?.content);
    const calls = toolCalls(choice?.message?.tool_calls);
    if (calls.length > 0)
      return { text: content ?? '', usage: usage((data as { usage?: unknown }).usage), toolCalls: calls };
    if (content === null) {
      const refusal = choice?.message?.refusal;
      throw new ProviderReplyError(
        typeof refusal === 'string' ? `the model refused: ${refusal}` : 'the reply has no message content',
      );
    }
    const reply = { text: content, usage: usage((data as { usage?: unknown }).usage) };
    return choice?.finish_reason === 'length' ? { ...reply, truncated: true } : reply;
  },
};
