import type { MemoryRepository } from '../memory.repository';
import type { FeatureHandler } from './feature.types';

/** Messages of history sent when the MEMORY feature names no `max_messages_context_count`. */
export const DEFAULT_CONTEXT_MESSAGES = 10;
const MAX_CONTEXT_MESSAGES = 100;

/** `max_messages_context_count` when it is an integer ≥ 0 (capped at 100), else the default. */
export function contextWindow(config: Record<string, unknown>): number {
  const n = config.max_messages_context_count;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return DEFAULT_CONTEXT_MESSAGES;
  return Math.min(n, MAX_CONTEXT_MESSAGES);
}

/**
 * MEMORY: the last messages of the session (same owner, agent and session_id) go before the new message. A caller
 * that sent its earlier turns itself (chat completions) has them as history instead: stored ones are not read.
 */
export function memoryFeature(memory: MemoryRepository): FeatureHandler {
  return {
    type: 'MEMORY',
    async beforeModel(ctx, config) {
      if (ctx.supplied?.turns.length) return;
      ctx.history = await memory.recent(ctx.owner, ctx.agent.id, ctx.sessionId, contextWindow(config));
    },
  };
}
