import type { Usage } from '../inference.types';
import { count, extraParams, ProviderReplyError, wantsJson, type ProviderAdapter } from './provider.types';

/** Body fields the service owns; `additional_model_params` cannot override them. */
const OWNED = ['model', 'messages', 'stream', 'temperature', 'top_p', 'response_format'];

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
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: count(u, 'total_tokens') || prompt + completion };
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
    const messages = [...(req.system ? [{ role: 'system', content: req.system }] : []), ...req.messages];
    const body: Record<string, unknown> = { ...params, model: req.model, messages, stream: false };
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
    const choice = (data as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] } | null)?.choices?.[0];
    const content = text(choice?.message?.content);
    if (content === null) {
      const refusal = choice?.message?.refusal;
      throw new ProviderReplyError(typeof refusal === 'string' ? `the model refused: ${refusal}` : 'the reply has no message content');
    }
    return { text: content, usage: usage((data as { usage?: unknown }).usage) };
  },
};
