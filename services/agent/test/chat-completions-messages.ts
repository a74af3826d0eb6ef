/** Messages of chat-completions requests and the errors the official `openai` client rejects with. */
import type OpenAI from 'openai';
import { APIError } from 'openai';

/** The messages a provider received. */
export type Sent = { role: string; content: string }[];
/** A user message. */
export const user = (content: string) => ({ role: 'user' as const, content });
/** A request with our extra `session_id` body field (the client sends unknown fields as they are). */
export const inSession = (session: string, params: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming) =>
  ({ ...params, session_id: session }) as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/** The error a call rejects with. */
export async function failure(call: Promise<unknown>): Promise<APIError> {
  const err: unknown = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(APIError);
  return err as APIError;
}
