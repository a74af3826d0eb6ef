import type { InferenceContext } from '../inference.types';

/**
 * One agent feature (MEMORY, RAI, KNOWLEDGE_BASE, ...) as a pair of hooks around the model call. Hooks may change
 * the context or throw an error from libs/errors to stop the call (e.g. a blocked input).
 */
export interface FeatureHandler {
  /** The feature `type` it implements, upper case. */
  type: string;
  /** Runs before the model is called, in ascending priority. */
  beforeModel?(ctx: InferenceContext, config: Record<string, unknown>): Promise<void>;
  /** Runs after the model answered (`ctx.reply` set), in descending priority. */
  afterModel?(ctx: InferenceContext, config: Record<string, unknown>): Promise<void>;
}
