import type { Toolbox } from '../tools/agent-toolbox';
import type { ModelMessage, ModelReply, ToolCallRecord, Usage } from './inference.types';

/** Model calls of one run when the agent sets no `max_iterations`. */
export const DEFAULT_MAX_ITERATIONS = 10;

export interface ToolLoopResult {
  reply: ModelReply;
  toolCalls: ToolCallRecord[];
  iterations: number;
}

function add(a: Usage | null, b: Usage | null): Usage | null {
  if (!a || !b) return a ?? b;
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

/** What the run answers when the model still asks for tools on its last allowed call. */
export const stoppedText = (max: number) => `Stopped after ${max} model calls (max_iterations) without a final answer.`;

/**
 * Calls the model, runs the tool calls it asks for, feeds their results back, and repeats until it answers without
 * asking, at most `maxIterations` model calls. Calls asked for on the last allowed model call are not run. Token
 * usage is summed over the model calls.
 *
 * A reply that asks for any of the caller's own functions (`handOver`, by name) ends the loop: the reply carries
 * those calls for the caller to run; calls of the agent's tools asked beside them are not run (the model asks again
 * when the caller continues).
 */
export async function runToolLoop(
  /** One model call; `iteration` counts them from 1. */
  complete: (messages: ModelMessage[], iteration: number) => Promise<ModelReply>,
  toolbox: Toolbox,
  initial: ModelMessage[],
  maxIterations: number,
  handOver: ReadonlySet<string> = new Set(),
): Promise<ToolLoopResult> {
  const messages = [...initial];
  const toolCalls: ToolCallRecord[] = [];
  let usage: Usage | null = null;
  for (let n = 1; ; n++) {
    const reply = await complete(messages, n);
    usage = add(usage, reply.usage);
    const asked = reply.toolCalls ?? [];
    const theirs = asked.filter((c) => handOver.has(c.name));
    if (theirs.length > 0) return { reply: { text: reply.text, usage, toolCalls: theirs }, toolCalls, iterations: n };
    if (asked.length === 0) {
      const truncated = reply.truncated ? { truncated: true } : {};
      return { reply: { text: reply.text, usage, ...truncated }, toolCalls, iterations: n };
    }
    if (n >= maxIterations)
      return { reply: { text: reply.text || stoppedText(maxIterations), usage }, toolCalls, iterations: n };
    messages.push({ role: 'assistant', content: reply.text, toolCalls: asked });
    for (const call of asked) {
      const record = await toolbox.run(call);
      toolCalls.push(record);
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: record.result,
        isError: record.error !== null,
      });
    }
  }
}
