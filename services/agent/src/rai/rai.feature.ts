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

function note(
  ctx: InferenceContext,
  direction: 'input' | 'output',
  policyId: string,
  v: Pick<RaiVerdict, 'action' | 'violations'>,
  part?: 'context',
): void {
  const record: RaiTurnRecord = { direction, policy_id: policyId, action: v.action, violations: v.violations };
  ctx.findings = [...(ctx.findings ?? []), { feature: 'RAI', ...record, ...(part ? { part } : {}) }];
}

/** RAI checks of a caller's supplied context that run at once. */
const CONTEXT_CHECKS_AT_ONCE = 4;

/** The verdict on each text, `CONTEXT_CHECKS_AT_ONCE` at a time, in the texts' order (empty texts are not sent). */
async function verdicts(client: RaiClient, ctx: InferenceContext, policyId: string, texts: string[]) {
  const out: (RaiVerdict | null)[] = texts.map(() => null);
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const i = next++;
      if (texts[i] !== '') out[i] = await client.check(ctx.owner, policyId, texts[i]!, 'input');
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONTEXT_CHECKS_AT_ONCE, texts.length) }, worker));
  return out;
}

/**
 * The context a caller sent with the call (chat completions: its system messages, earlier turns and the results of its
 * own tools, which the model reads as it reads the message) checked as input, each text on its own: redactions
 * applied in place; any text blocked blocks the call. One finding (`part: "context"`) sums the verdicts. Nothing supplied: nothing asked.
 */
async function checkSupplied(client: RaiClient, ctx: InferenceContext, policyId: string): Promise<void> {
  const supplied = ctx.supplied;
  const after = supplied?.continuation ?? [];
  if (!supplied || supplied.system.length + supplied.turns.length + after.length === 0) return;
  const texts = [...supplied.system, ...supplied.turns.map((t) => t.content), ...after.map((t) => t.content)];
  const found = await verdicts(client, ctx, policyId, texts);
  const text = (i: number) => found[i]?.text ?? texts[i]!;
  const system = supplied.system.map((_, i) => text(i));
  const turns = supplied.turns.map((t, i) => ({ ...t, content: text(supplied.system.length + i) }));
  const continuation = after.map((t, i) => ({ ...t, content: text(supplied.system.length + turns.length + i) }));
  ctx.supplied = { system, turns, ...(continuation.length ? { continuation } : {}) };
  if (turns.length > 0) ctx.history = turns;
  const actions = found.map((v) => v?.action ?? 'allow');
  const action = actions.includes('block') ? 'block' : actions.includes('redact') ? 'redact' : 'allow';
  note(ctx, 'input', policyId, { action, violations: found.flatMap((v) => v?.violations ?? []) }, 'context');
  if (action === 'block') ctx.reply = { text: INPUT_REFUSAL, usage: null };
}

/**
 * RAI (`config.policy_id`): the user message is checked before the model — blocked, the model is not called and the
 * answer is a refusal; redacted, the model sees the redacted message — then any context the caller supplied (see
 * checkSupplied), and the answer after it, with redactions applied or a refusal in its place. The turn records what
 * was found. An RAI service that cannot answer → 503.
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
      else await checkSupplied(client, ctx, policyId);
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
