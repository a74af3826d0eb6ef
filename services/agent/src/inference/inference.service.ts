import { inSpan } from '@platform/tracing';

import { createInferenceRun, turnResult, type InferenceServiceDeps } from './inference-run';
import type { ChatInput, ChatResult, Owner, TurnResult } from './inference.types';

export type { InferenceServiceDeps };

/**
 * Runs agents: agent and credential → features before the model → provider call → features after → stored turn.
 */
export function createInferenceService(deps: InferenceServiceDeps) {
  const runs = createInferenceRun(deps);
  /** One turn: the answer with its token usage and the model it ran on. */
  const complete = (owner: Owner, input: ChatInput): Promise<TurnResult> =>
    inSpan('agent run', { attributes: { 'agent.id': String(input.agent_id), 'agent.mode': 'chat' } }, () =>
      completeTurn(owner, input),
    );
  async function completeTurn(owner: Owner, input: ChatInput): Promise<TurnResult> {
    const p = await runs.prepare(owner, input);
    const { ctx, run } = p;
    // A feature that answered already (a blocked input) leaves the model uncalled.
    const result = ctx.reply
      ? { reply: ctx.reply, toolCalls: [] }
      : await runs.askModel(p, await runs.toolbox(owner, p));
    ctx.reply = result.reply;
    // Calls handed to the caller are not an answer: the answer's checks run when the caller continues.
    if (!ctx.reply.toolCalls?.length) await run.afterModel(ctx);
    await runs.record(p, result.toolCalls, 'chat');
    return turnResult(p);
  }

  return {
    complete,

    async chat(owner: Owner, input: ChatInput): Promise<ChatResult> {
      const turn = await complete(owner, input);
      return { response: turn.text, session_id: turn.sessionId, agent_id: turn.agentId };
    },

    /** The owner's stored messages of a session, newest first. Another owner's session is simply empty. */
    messages(owner: Owner, sessionId: string, page: { skip: number; limit: number; agent_id?: string }) {
      const agentId = page.agent_id === undefined ? undefined : Number(page.agent_id);
      return deps.memory.list(owner, sessionId, { skip: page.skip, limit: page.limit, agentId });
    },
  };
}

export type InferenceService = ReturnType<typeof createInferenceService>;
