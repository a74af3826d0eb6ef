import { combine, type Finding } from './check.types';
import { plainFold } from './fold';

/**
 * Prompt-injection signals over folded text, weighted by how rarely they occur in honest requests: overriding
 * earlier instructions, extracting the hidden prompt, switching the model's role or safety mode, and forged
 * conversation markup.
 */
const SIGNALS: { weight: number; pattern: RegExp }[] = [
  {
    weight: 0.8,
    pattern:
      /\b(?:ignore|disregard|forget|skip|override|bypass)\b[^.!?\n]{0,40}\b(?:previous|prior|above|earlier|preceding|all|any|your|the|initial|original|system)\b[^.!?\n]{0,30}\b(?:instructions?|prompts?|rules|directions|guidelines|context|messages?|constraints|programming)\b/,
  },
  {
    weight: 0.7,
    pattern:
      /\b(?:reveal|show|print|repeat|output|display|tell me|give me|leak|expose)\b[^.!?\n]{0,40}\b(?:system|hidden|initial|original|secret|developer)\s+(?:prompt|instructions?|message|rules)\b/,
  },
  {
    weight: 0.6,
    pattern:
      /\byou\s+are\s+(?:now\s+(?:a|an|my|the|in|dan|called|named|free)\b|no\s+longer\s+(?:an?\s+)?(?:ai|assistant|bound|restricted|chatgpt|claude))|\bfrom\s+now\s+on\b[^.!?\n]{0,40}\b(?:you|act|respond|answer)\b/,
  },
  {
    weight: 0.7,
    pattern: /\b(?:god|jailbreak|dan|unrestricted|unfiltered|evil)\s+mode\b|\bdo\s+anything\s+now\b|\bjailbr(?:ea|o)k/,
  },
  // Developer mode is also a phone and browser setting: only outside that context is it a role switch.
  {
    weight: 0.5,
    pattern:
      /\bdeveloper\s+mode\b(?![^.!?\n]{0,40}\b(?:android|iphone|ios|phone|chrome|windows|mac|device|settings|browser|tablet)\b)/,
  },
  {
    weight: 0.45,
    pattern:
      /\b(?:pretend|act|behave|roleplay)\s+(?:to\s+be|as\s+if|as|like)\b[^.!?\n]{0,60}\b(?:no|without|any)\s+(?:restrictions|rules|limits|filters|guidelines|censorship)\b/,
  },
  {
    weight: 0.6,
    pattern:
      /<\/?\s*(?:system|im_start|im_end|instructions?)\s*>|<\|im_(?:start|end)\|>|\[\/?(?:inst|system)\]|<<\s*sys\s*>>|#{2,}\s*(?:system|new instructions?)\s*:/,
  },
  { weight: 0.5, pattern: /\b(?:new|updated|real|actual|true)\s+(?:instructions?|task|rules|system\s+prompt)\s*:/ },
  {
    weight: 0.4,
    pattern:
      /\b(?:do\s+not|don't|never)\s+(?:follow|obey|apply)\b[^.!?\n]{0,30}\b(?:rules|instructions|guidelines|policy|policies)\b/,
  },
  {
    weight: 0.35,
    pattern:
      /\b(?:without|no)\s+(?:any\s+)?(?:restrictions|filters|censorship|safety\s+guidelines|ethical\s+guidelines)\b/,
  },
  { weight: 0.15, pattern: /\b(?:system\s+prompt|prompt\s+injection|instructions\s+above)\b/ },
];

/** A prompt-injection score in [0, 1]; a score above the threshold violates. */
export function injectionScore(text: string): number {
  const folded = plainFold(text);
  return combine(SIGNALS.filter((s) => s.pattern.test(folded)).map((s) => s.weight));
}

export function injectionFindings(text: string, threshold: number): Finding[] {
  const score = injectionScore(text);
  return score > threshold
    ? [
        {
          check: 'prompt_injection',
          action: 'block',
          score,
          detail: `prompt injection score ${score} above threshold ${threshold}`,
        },
      ]
    : [];
}
