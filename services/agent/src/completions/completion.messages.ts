import { ValidationError } from '@platform/errors';

import type { CallSettings, ModelMessage, ModelTool, ToolCall, ToolChoice } from '../inference/inference.types';
import type { CompletionBody, CompletionMessage, CompletionToolCall } from './completion.schemas.types';

/** A message's text: the string, or its text parts joined by a newline; null is empty. */
export const textOf = (content: CompletionMessage['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text).join('\n');

/** The smaller of the two token bounds sent, if any. */
function maxTokensOf(body: CompletionBody): number | undefined {
  const bounds = [body.max_tokens, body.max_completion_tokens].filter((n): n is number => typeof n === 'number');
  return bounds.length > 0 ? Math.min(...bounds) : undefined;
}

const refuse = (loc: (string | number)[], msg: string, type: string) =>
  ValidationError.field(['body', ...loc], msg, type);

/** A tool call as OpenAI writes it. */
export const wireCall = (c: ToolCall): CompletionToolCall => ({
  id: c.id,
  type: 'function',
  function: { name: c.name, arguments: c.arguments },
});

/**
 * The messages other than the turn's own, as the model sees them. Tool calls of assistant messages are remembered by
 * id, so that each tool message names the call it answers (and the model gets its function's name with it).
 */
function modelMessages(messages: CompletionMessage[], turn: number) {
  const called = new Map<string, string>();
  const system: string[] = [];
  const turns: ModelMessage[] = [];
  const continuation: ModelMessage[] = [];
  messages.forEach((m, i) => {
    if (m.tool_calls?.length && m.role !== 'assistant')
      throw refuse(['messages', i, 'tool_calls'], 'Only assistant messages carry tool_calls', 'tool_calls_not_allowed');
    if (i === turn) return;
    const content = textOf(m.content);
    if (m.role === 'system' || m.role === 'developer') return void system.push(content);
    const into = i < turn ? turns : continuation;
    if (i > turn && m.role !== 'tool' && !m.tool_calls?.length)
      throw refuse(
        ['messages', i, 'role'],
        "After the turn's user message only its tool rounds follow: assistant messages with tool_calls and tool messages of their results",
        'not_a_tool_round',
      );
    if (m.role === 'tool') {
      const id = m.tool_call_id;
      if (!id)
        throw refuse(['messages', i, 'tool_call_id'], 'A tool message names the call it answers', 'any.required');
      const name = called.get(id);
      if (name === undefined)
        throw refuse(
          ['messages', i, 'tool_call_id'],
          `tool_call_id "${id}" names no tool call of an earlier assistant message`,
          'unknown_tool_call',
        );
      return void into.push({ role: 'tool', toolCallId: id, name, content, isError: false });
    }
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const toolCalls = m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
      for (const c of toolCalls) called.set(c.id, c.name);
      return void into.push({ role: 'assistant', content, toolCalls });
    }
    into.push({ role: m.role, content });
  });
  return { system, turns, continuation };
}

/** The caller's functions as the model is offered them (none with `tool_choice: "none"`), and a required choice. */
function callerTools(body: CompletionBody): { tools?: ModelTool[]; toolChoice?: ToolChoice } {
  const choice = body.tool_choice;
  if (!body.tools?.length || choice === 'none') return {};
  const names = new Set<string>();
  const tools = body.tools.map((t, i): ModelTool => {
    if (names.has(t.function.name))
      throw refuse(['tools', i, 'function', 'name'], `Function "${t.function.name}" is named twice`, 'duplicate');
    names.add(t.function.name);
    const parameters = t.function.parameters ?? { type: 'object', properties: {} };
    return { name: t.function.name, description: t.function.description ?? '', parameters };
  });
  if (choice === 'required') return { tools, toolChoice: 'required' };
  if (typeof choice === 'object' && choice !== null) {
    if (!names.has(choice.function.name))
      throw refuse(
        ['tool_choice', 'function', 'name'],
        `tool_choice names "${choice.function.name}", which is not one of tools`,
        'unknown_function',
      );
    return { tools, toolChoice: { name: choice.function.name } };
  }
  return { tools };
}

/**
 * The turn in our chat's terms. The last user message is the turn's message; after it only this turn's tool rounds
 * may follow (assistant messages asking for the caller's functions and tool messages of their results), so the last
 * message is a user or a tool message (else 422). Earlier system and developer messages are extra system
 * instructions, earlier user, assistant and tool messages the history, all for this call only.
 */
export function callOf(body: CompletionBody): { message: string; call: CallSettings } {
  const messages = body.messages;
  const last = messages.length - 1;
  const turn = messages.findLastIndex((m) => m.role === 'user');
  if (turn < 0 || (turn < last && messages[last]!.role !== 'tool')) {
    throw refuse(
      ['messages', last, 'role'],
      'The last message must be a user message (the turn the agent answers) or the result of a tool call the model asked for',
      'last_message_not_user',
    );
  }
  const { system, turns, continuation } = modelMessages(messages, turn);
  const call: CallSettings = { system, turns, ...callerTools(body) };
  if (continuation.length > 0) call.continuation = continuation;
  if (typeof body.temperature === 'number') call.temperature = body.temperature;
  if (typeof body.top_p === 'number') call.top_p = body.top_p;
  const maxTokens = maxTokensOf(body);
  if (maxTokens !== undefined) call.max_tokens = maxTokens;
  return { message: textOf(messages[turn]!.content), call };
}
