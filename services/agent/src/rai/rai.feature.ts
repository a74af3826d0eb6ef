import { ValidationError } from '@platform/errors';

import type { FeatureHandler } from '../inference/features/feature.types';
import type { InferenceContext } from '../inference/inference.types';
import type { RaiClient } from './rai.client';
import type { RaiTurnRecord, RaiVerdict } from './rai.types';

/** What the caller gets instead of an answer when the policy blocks the message or the answer. */
export const INPUT_REFUSAL = 'I cannot help with that request: it was blocked by the responsible-AI policy.';
export const OUTPUT_REFUSAL = 'The answer was withheld: it was blocked by the responsible-AI policy.';

function policyIdOf(config: Record<string, unknown>): string {
  const id = config.policy_id;
  if (typeof id !== 'string' || id.trim() === '') {
    throw ValidationError.field(
      ['body', 'agent_id'],
      "The agent's RAI feature has no config.policy_id",
      'policy_missing',
    );
  }
  return id;
}

function note(ctx: InferenceContext, direction: 'input' | 'output', policyId: string, v: RaiVerdict): void {
  const record: RaiTurnRecord = { direction, policy_id: policyId, action: v.action, violations: v.violations };
  ctx.findings = [...(ctx.findings ?? []), { feature: 'RAI', ...record }];
}

/**
 * RAI (`config.policy_id`): the user message is checked before the model — blocked, the model is not called and the
 * answer is a refusal; redacted, the model sees the redacted message — and the answer after it, with redactions
 * applied or a refusal in its place. The turn records what was found. An RAI service that cannot answer → 503.
 */
export function raiFeature(client: RaiClient): FeatureHandler {
  return {
    type: 'RAI',
    async beforeModel(ctx, config) {
      const policyId = policyIdOf(config);
      const verdict = await client.check(ctx.owner, policyId, ctx.message, 'input');
      note(ctx, 'input', policyId, verdict);
      // Stored and sent with the policy's redactions, blocked or not.
      ctx.message = verdict.text;
      if (verdict.action === 'block') ctx.reply = { text: INPUT_REFUSAL, usage: null };
    },
    async afterModel(ctx, config) {
      if (
        !ctx.reply ||
        ctx.findings?.some((f) => f.feature === 'RAI' && f.direction === 'input' && f.action === 'block')
      )
        return;
      const policyId = policyIdOf(config);
      const verdict = await client.check(ctx.owner, policyId, ctx.reply.text, 'output');
      note(ctx, 'output', policyId, verdict);
      ctx.reply = { ...ctx.reply, text: verdict.action === 'block' ? OUTPUT_REFUSAL : verdict.text };
    },
  };
}
