import type { Logger } from '@platform/logger';

import type { AgentRecord } from '../../agents/agent.types';
import type { InferenceContext } from '../inference.types';
import type { FeatureHandler } from './feature.types';

interface Planned {
  handler: FeatureHandler;
  config: Record<string, unknown>;
}

/** The features of one call, in order, ready to run around the model call. */
export interface FeatureRun {
  /** Feature types that will run, in order. */
  types: string[];
  beforeModel(ctx: InferenceContext): Promise<void>;
  afterModel(ctx: InferenceContext): Promise<void>;
}

/**
 * Runs an agent's features through the handlers the service knows. Order: ascending `priority`, then the order
 * the agent lists them; afterModel hooks unwind in reverse (the first feature in sees the reply last). A type
 * matches case-insensitively; a repeated type runs once (its first entry); an unknown type is skipped with a warning.
 */
export function createFeaturePipeline(handlers: FeatureHandler[], logger: Logger) {
  const byType = new Map(handlers.map((h) => [h.type.toUpperCase(), h]));
  return {
    plan(agent: AgentRecord): FeatureRun {
      const ordered = (agent.features ?? [])
        .map((feature, index) => ({ feature, index }))
        .sort((a, b) => (a.feature.priority ?? 0) - (b.feature.priority ?? 0) || a.index - b.index);
      const planned: Planned[] = [];
      for (const { feature } of ordered) {
        const handler = byType.get(feature.type.toUpperCase());
        if (!handler) {
          logger.warn('unknown agent feature ignored', { feature_type: feature.type, agent_id: agent.id });
          continue;
        }
        if (planned.some((p) => p.handler === handler)) continue;
        planned.push({ handler, config: feature.config ?? {} });
      }
      return {
        types: planned.map((p) => p.handler.type),
        async beforeModel(ctx) {
          for (const p of planned) await p.handler.beforeModel?.(ctx, p.config);
        },
        async afterModel(ctx) {
          for (const p of [...planned].reverse()) await p.handler.afterModel?.(ctx, p.config);
        },
      };
    },
  };
}

export type FeaturePipeline = ReturnType<typeof createFeaturePipeline>;
