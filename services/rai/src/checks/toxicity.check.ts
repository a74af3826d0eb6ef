import { englishDataset, englishRecommendedTransformers, RegExpMatcher } from 'obscenity';

import { combine, type Finding } from './check.types';
import { plainFold } from './fold';

/** Profanity, with obscenity's transformers for obfuscated spellings (b1tch, fuuuck) and its whitelist (Scunthorpe). */
const profanity = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });

/** Weighted phrase signals over folded text (accents, case and look-alike digits removed). */
const SIGNALS: { weight: number; pattern: RegExp }[] = [
  // Threats of violence against the reader or a group.
  {
    weight: 0.9,
    pattern:
      /\b(?:i(?:'ll| will| am going to|'m going to|m gonna)|we(?:'ll| will)|gonna)\s+(?:kill|murder|hurt|shoot|stab|beat|destroy|rape|find)\s+(?:you|u|ya|them|him|her|your)\b/,
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
      /\b(?:shut\s+(?:the\s+\w+\s+)?up|screw\s+you|go\s+to\s+hell|get\s+lost\s+\w*|nobody\s+likes\s+you|drop\s+dead)\b/,
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

const PROFANITY_WEIGHT = 0.35;
/** Profanity aimed at the reader ("you absolute ...", "ur a ..."). */
const DIRECTED_PROFANITY_WEIGHT = 0.75;
const SECOND_PERSON = /\b(?:you|ur|u|your|youre)\b/gi;

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

/** A toxicity score in [0, 1]: profanity and phrase signals combined; a score above the threshold violates. */
export function toxicityScore(text: string): number {
  const folded = plainFold(text);
  const weights = SIGNALS.filter((s) => s.pattern.test(folded)).map((s) => s.weight);
  const starts = [...new Set(profanity.getAllMatches(text).map((m) => m.startIndex))];
  for (let i = 0; i < Math.min(starts.length, 3); i++) weights.push(PROFANITY_WEIGHT);
  if (directedAt(text, starts)) weights.push(DIRECTED_PROFANITY_WEIGHT);
  return combine(weights);
}

export function toxicityFindings(text: string, threshold: number): Finding[] {
  const score = toxicityScore(text);
  return score > threshold
    ? [{ check: 'toxicity', action: 'block', score, detail: `toxicity score ${score} above threshold ${threshold}` }]
    : [];
}
