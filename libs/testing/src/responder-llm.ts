import { startLocalServer, type LocalServer } from './local-server';

/** A model's reply body for a request body; the server answers 200 with it. */
export type LlmResponder = (body: Record<string, unknown>) => unknown;

export interface ResponderLlm extends LocalServer {
  /** The base_url to store on a credential (`.../v1`). */
  baseUrl: string;
  /** Replaces how the next requests are answered. */
  respond(responder: LlmResponder): void;
  /** The JSON bodies received, in order. */
  bodies(): Record<string, unknown>[];
}

/**
 * A local LLM provider whose replies are computed from each request (OpenAI `POST /v1/chat/completions` or Anthropic
 * `POST /v1/messages`): for tool-calling tests, where the answer depends on the tool results the model was sent.
 */
export async function startResponderLlm(
  protocol: 'openai' | 'anthropic',
  responder: LlmResponder,
): Promise<ResponderLlm> {
  let current = responder;
  const path = protocol === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const server = await startLocalServer((req, res) => {
    if (req.method !== 'POST' || req.url !== path) return res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(current(req.json as Record<string, unknown>)));
  });
  return Object.assign(server, {
    baseUrl: `${server.url}/v1`,
    respond: (next: LlmResponder) => {
      current = next;
    },
    bodies: () => server.requests.map((r) => r.json as Record<string, unknown>),
  });
}

/** An OpenAI chat-completions reply asking for one function call. */
export function openAiToolCallReply(id: string, name: string, args: unknown): unknown {
  const call = {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
  return {
    id: 'chatcmpl-tools',
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** An OpenAI chat-completions reply with text. */
export function openAiTextReply(text: string): unknown {
  return {
    id: 'chatcmpl-text',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 },
  };
}

/** An Anthropic Messages reply asking for one tool use (with a line of text before it, as Claude often writes). */
export function anthropicToolUseReply(id: string, name: string, input: unknown): unknown {
  return {
    id: 'msg_tools',
    type: 'message',
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_use', id, name, input },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** An Anthropic Messages reply with text. */
export function anthropicTextReply(text: string): unknown {
  return {
    id: 'msg_text',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 20, output_tokens: 6 },
  };
}
