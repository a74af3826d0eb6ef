import { combine, roundScore, type Finding } from './check.types';
import { plainFold } from './fold';
import { windowedProbabilityFast } from './injection/fast-model';
import { matchingWeights } from './injection/rules';
import { deobfuscate, isPlainQuestion, setAsideQuoted } from './injection/views';
import { loadModel } from './linear-model';
import weights from './models/prompt_injection.json';

/**
 * Prompt injection, scored two ways and the higher kept:
 * - rules (injection/rules.ts) over a de-obfuscated view of the text ("I.g.n.o.r.e", "1gn0re", zero-width splits),
 *   in English and the common override and extraction phrasings of five other languages;
 * - a linear model on word and character n-grams (linear-model.ts), trained by scripts/train-prompt_injection.ts on
 *   public attacks and benign prompts, its probability mapped so that the contract's default threshold (0.3) sits at
 *   the probability chosen on the training data (`calibration.p`), and higher thresholds stay stricter.
 * Quoted passages that the user asks to translate, summarise or classify are data: both read the text without them.
 * A one-line question that addresses no one ("What is a system prompt?") is scored by the rules only (the model's
 * score is capped at the default threshold).
 */
const MODEL = loadModel(weights);
const P_AT_DEFAULT = weights.calibration.p;
const DEFAULT_THRESHOLD = 0.3;
/**
 * Texts of fewer words than this are scored by the rules alone: with so few n-grams the model's probability rests on
 * one or two of them ("Hello", "Say something." scored above 0.9).
 */
export const MIN_MODEL_WORDS = 5;
const WORDS = /[\p{L}\p{N}]+/gu;

/** The model's probability on a monotone scale where `P_AT_DEFAULT` lands on the default threshold. */
export function modelScore(p: number): number {
  return p <= P_AT_DEFAULT
    ? (DEFAULT_THRESHOLD * p) / P_AT_DEFAULT
    : DEFAULT_THRESHOLD + ((1 - DEFAULT_THRESHOLD) * (p - P_AT_DEFAULT)) / (1 - P_AT_DEFAULT);
}

/** The rules' score of a text: its quoted data set aside, its obfuscation undone. */
export function ruleScore(text: string): number {
  const data = setAsideQuoted(text);
  return combine(matchingWeights(deobfuscate(data), plainFold(data)));
}

/** A prompt-injection score in [0, 1]; a score above the threshold violates. */
export function injectionScore(text: string): number {
  const rules = ruleScore(text);
  if (rules >= 1) return 1;
  if ((text.match(WORDS)?.length ?? 0) < MIN_MODEL_WORDS) return rules;
  const p = windowedProbabilityFast(MODEL, setAsideQuoted(text));
  // A one-line question to no one is left to the rules: the model knows the words, not the intent.
  const model = isPlainQuestion(text) ? Math.min(modelScore(p), DEFAULT_THRESHOLD) : modelScore(p);
  return roundScore(Math.max(rules, model));
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
