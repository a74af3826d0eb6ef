import { postProvider, type ProviderCall } from './openai-protocol';

/** One message of an OpenAI-protocol chat. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Largest answer kept from a chat completion (a verdict or a short reply, never a document). */
const MAX_CONTENT_CHARS = 16_000;

/**
 * The text of the first choice of `POST /chat/completions` (OpenAI protocol), temperature 0 unless given. Throws when
 * the provider fails, answers another shape, or answers no text.
 */
export async function chatCompletion(
  call: ProviderCall,
  messages: ChatMessage[],
  options: { temperature?: number; maxTokens?: number; json?: boolean } = {},
): Promise<string> {
  const data = (await postProvider(call, '/chat/completions', {
    messages,
    temperature: options.temperature ?? 0,
    ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
    ...(options.json ? { response_format: { type: 'json_object' } } : {}),
  })) as { choices?: { message?: { content?: unknown } }[] };
  const content = data.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') throw new Error('chat completion answered no text');
  return content.slice(0, MAX_CONTENT_CHARS);
}
