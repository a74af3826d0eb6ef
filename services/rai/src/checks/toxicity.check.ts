import { englishDataset, englishRecommendedTransformers, RegExpMatcher } from 'obscenity';

import { combine, roundScore, type Finding } from './check.types';
import { plainFold } from './fold';
import { loadModel, windowedProbability } from './linear-model';
import weights from './models/toxicity.json';
import { isMildExpletive, modelInput } from './toxicity/expletives';

/**
 * The shipped linear model (word and character n-grams; NB-SVM: logistic regression on naive-Bayes-scaled features),
 * trained by scripts/train-toxicity.sh on public data only (see bench/datasets/toxicity.ts): tweets labelled offensive
 * or hateful, Stormfront sentences, ToxiGen statements, ConvAbuse messages to chatbots.
 */
const model = loadModel(weights);

/** Profanity, with obscenity's transformers for obfuscated spellings (b1tch, fuuuck) and its whitelist (Scunthorpe). */
const profanity = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });

/** Weighted phrase signals over folded text (accents, case and look-alike digits removed). */
const SIGNALS: { weight: number; pattern: RegExp }[] = [
  // Threats of violence against the reader or a group.
  {
    weight: 0.9,
    pattern:
      /\b(?:i(?:'ll| will| am going to|'m going to|m gonna)|we(?:'ll| will| are going to|'re going to)|gonna)\s+(?:kill|murder|hurt|shoot|stab|beat|destroy|rape|find)\s+(?:you|u|ya|them|him|her|your)\b/,
  },
  // The same with a few words between ("I will find where you live and hurt you"), or knowing where the reader lives.
  {
    weight: 0.85,
    pattern:
      /\b(?:i(?:'ll| will| am going to|'m going to|m gonna)|we(?:'ll| will))\s+(?:(?!(?:not|never|let|anyone|anybody|nobody|no\s+one)\b)[\w']+\s+){1,6}?(?:kill|murder|hurt|shoot|stab|rape|strangle|choke)\s+(?:you|u|ya|your\s+\w+)\b|\b(?:i|we)\s+know\s+where\s+(?:you|u)\s+live\b/,
  },
  {
    weight: 0.85,
    pattern:
      /\b(?:(?:hope|wish)\s+(?:you|u)\s+(?:die|get\s+(?:cancer|killed|hurt|raped))|kys|kill\s+yourself|go\s+die)\b/,
  },
  // Insults aimed at the reader.
  {
    weight: 0.75,
    pattern:
      /\b(?:you(?:'re|\s+are|r)?|u\s+r|ur)\s+(?:(?:a|an|such|such\s+an?|so|the|a\s+total|a\s+complete|an\s+absolute)\s+)?(?:stupid|idiot|idiots|moron|imbecile|loser|dumb|worthless|pathetic|useless|disgusting|retard(?:ed)?|trash|garbage|scum|clown|ugly|fat|braindead|brainless|dumbass|piece\s+of\s+(?:shit|garbage|trash))\b/,
  },
  {
    weight: 0.7,
    pattern:
      /\b(?:shut\s+(?:the\s+\w+\s+)?up|(?:screw|fuck|f\*+k|f\*+)\s+(?:you|u|ya|off|yourself)|go\s+to\s+hell|get\s+lost\s+\w*|nobody\s+likes\s+you|drop\s+dead)\b/,
  },
  // Demeaning words used on their own.
  {
    weight: 0.3,
    pattern: /\b(?:idiot|moron|imbecile|loser|stupid|dumb|pathetic|worthless|scum|retard(?:ed)?|braindead|dumbass)\b/,
  },
  // Dehumanising language about groups.
  {
    weight: 0.8,
    pattern:
      /\b(?:all|those|these)\s+\w+\s+(?:are|r)\s+(?:animals|vermin|subhuman|parasites|cockroaches|rats|scum|savages)\b/,
  },
];

/** Abusive words (slurs, sexual insults) on their own; mild expletives on their own count for nothing here. */
const PROFANITY_WEIGHT = 0.35;
/** Profanity aimed at the reader ("you absolute ...", "ur a ..."). */
const DIRECTED_PROFANITY_WEIGHT = 0.75;
const SECOND_PERSON = /\b(?:you|ur|u|your|youre)\b/gi;

/** The whole word around a match (obscenity matches stems: "fuck" in "fucking"). */
function wordAt(text: string, start: number, end: number): string {
  let a = start;
  let b = end + 1;
  while (a > 0 && /[\p{L}*]/u.test(text[a - 1]!)) a--;
  while (b < text.length && /[\p{L}*]/u.test(text[b]!)) b++;
  return text.slice(a, b);
}

/** Whether a profane match starts within a few words after "you"/"ur" (both lists in text order: one pass). */
function directedAt(text: string, starts: number[]): boolean {
  const yous = [...text.matchAll(SECOND_PERSON)].map((m) => m.index + m[0].length);
  let y = -1;
  for (const s of [...starts].sort((a, b) => a - b)) {
    while (y + 1 < yous.length && yous[y + 1]! <= s) y++;
    if (y >= 0 && s - yous[y]! <= 25) return true;
  }
  return false;
}

/** The rules' score in [0, 1]: profanity and phrase signals combined. */
export function ruleScore(text: string): number {
  const folded = plainFold(text);
  const weights = SIGNALS.filter((s) => s.pattern.test(folded)).map((s) => s.weight);
  const matches = profanity.getAllMatches(text);
  const starts = [...new Set(matches.map((m) => m.startIndex))];
  const abusive = new Set(
    matches.filter((m) => !isMildExpletive(wordAt(text, m.startIndex, m.endIndex))).map((m) => m.startIndex),
  );
  for (let i = 0; i < Math.min(abusive.size, 3); i++) weights.push(PROFANITY_WEIGHT);
  if (directedAt(text, starts)) weights.push(DIRECTED_PROFANITY_WEIGHT);
  return combine(weights);
}

/**
 * The model's probability mapped to a score, piecewise linear and increasing, so that the contract's default
 * threshold (0.4) sits at the probability chosen on the training data's dev part (best F1 there): p = MODEL_AT_DEFAULT
 * scores exactly DEFAULT_THRESHOLD. The mapping only rises, so a policy's threshold keeps its meaning (lower flags more).
 */
export const MODEL_AT_DEFAULT = 0.5;
const DEFAULT_THRESHOLD = 0.4;
export function modelScore(text: string): number {
  const p = windowedProbability(model, modelInput(text));
  const s =
    p <= MODEL_AT_DEFAULT
      ? (p / MODEL_AT_DEFAULT) * DEFAULT_THRESHOLD
      : DEFAULT_THRESHOLD + ((p - MODEL_AT_DEFAULT) / (1 - MODEL_AT_DEFAULT)) * (1 - DEFAULT_THRESHOLD);
  return roundScore(s);
}

/** A toxicity score in [0, 1]: the higher of the rules' and the model's; a score above the threshold violates. */
export function toxicityScore(text: string): number {
  return Math.max(ruleScore(text), modelScore(text));
}

export function toxicityFindings(text: string, threshold: number): Finding[] {
  const score = toxicityScore(text);
  return score > threshold
    ? [{ check: 'toxicity', action: 'block', score, detail: `toxicity score ${score} above threshold ${threshold}` }]
    : [];
}
