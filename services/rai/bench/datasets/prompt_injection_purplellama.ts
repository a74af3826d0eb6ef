/**
 * Two more cross-dataset splits for prompt injection (issue 48), evaluation only: nothing of them trains, tunes or
 * calibrates anything, now or later (the English cases and their translations stay out of training together).
 * - `cross-purplellama`: the 251 English cases of Meta's CyberSecEval prompt-injection benchmark (PurpleLlama, MIT), each
 *   case's `user_input` (direct and indirect injections of 15 kinds) as an attack; as benign texts, English tweets of
 *   XLM-T's sentiment test set (cardiffnlp/xlm-t, Apache-2.0; Twitter's terms apply to the text).
 * - `cross-multilingual`: the benchmark's 1,004 machine-translated cases (17 languages) as attacks; as benign texts, the
 *   non-English tweets of the same XLM-T test sets (Arabic, French, German, Hindi, Italian, Portuguese, Spanish).
 * The tweets are a hash sample (the same texts on every run); every text is deduplicated against the other
 * prompt-injection splits (normalised text, and half its word 4-grams shared with one of theirs).
 *
 * Run after prompt_injection.ts and prompt_injection_cross2.ts:
 *   `RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only bench/datasets/prompt_injection_purplellama.ts`.
 */
import { dedupe, dropNearDuplicates, normalise } from './near_duplicates';
import { inTestShare, readPrepared, readSource, writeSplit, type LabelledExample } from './source';

export const SOURCES = {
  purpleLlama: { repo: 'meta-llama/PurpleLlama', commit: '4be64c3a24442b51c76175e6ec67722cc3f5fe38' },
  xlmT: { repo: 'cardiffnlp/xlm-t', commit: '874214d64d96599eb869a033c22ec2cc57d19256' },
} as const;

const CASES = 'CybersecurityBenchmarks/datasets/prompt_injection';
const TWEET_LANGUAGES = ['arabic', 'french', 'german', 'hindi', 'italian', 'portuguese', 'spanish'] as const;
/** Share of each language's 869 test tweets taken as benign texts. */
const TWEET_SHARE = 0.3;

interface Case {
  user_input: string;
  injection_type: string;
  injection_variant: string;
  speaking_language: string;
}

function cases(file: string): LabelledExample[] {
  const { repo, commit } = SOURCES.purpleLlama;
  return (JSON.parse(readSource(repo, commit, `${CASES}/${file}`)) as Case[]).map((c) => ({
    text: c.user_input.trim(),
    label: true,
    source: `purplellama:${c.speaking_language.toLowerCase()}:${c.injection_type}`,
  }));
}

function tweets(language: string): LabelledExample[] {
  const { repo, commit } = SOURCES.xlmT;
  return readSource(repo, commit, `data/sentiment/${language}/test_text.txt`)
    .split('\n')
    .map((t) => t.trim())
    .filter((t) => t !== '' && inTestShare(normalise(t), TWEET_SHARE))
    .map((text) => ({ text, label: false, source: `xlm-t:${language}` }));
}

export function preparePurpleLlama(): Record<'cross-purplellama' | 'cross-multilingual', LabelledExample[]> {
  const existing = readPrepared(
    'prompt_injection',
    ['train', 'heldout', 'cross', 'cross2'],
    'prompt_injection.ts and prompt_injection_cross2.ts',
  );
  const seen = new Set(existing.map((e) => normalise(e.text)));
  const english = dedupe([...cases('prompt_injection.json'), ...tweets('english')], seen);
  const others = dedupe(
    [...cases('prompt_injection_multilingual_machine_translated.json'), ...TWEET_LANGUAGES.flatMap(tweets)],
    seen,
  );
  return {
    'cross-purplellama': dropNearDuplicates(english, existing),
    'cross-multilingual': dropNearDuplicates(others, existing),
  };
}

if (require.main === module) {
  for (const [split, examples] of Object.entries(preparePurpleLlama())) {
    const file = writeSplit('prompt_injection', split as 'cross-purplellama' | 'cross-multilingual', examples);
    const bySource = new Map<string, number>();
    for (const e of examples) bySource.set(e.source, (bySource.get(e.source) ?? 0) + 1);
    const pos = examples.filter((e) => e.label).length;
    process.stdout.write(
      `${split}: ${examples.length} (${pos} attacks) → ${file}\n  ${[...bySource].map(([s, n]) => `${s} ${n}`).join(', ')}\n`,
    );
  }
}
