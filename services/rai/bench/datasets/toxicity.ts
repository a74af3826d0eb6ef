/**
 * Toxicity evaluation sets (issue 31), prepared from public data read at pinned commits (see SOURCES.md).
 *
 * "Toxic" (label true) = the check must fire: insults, threats, hate, harassment and obscene abuse aimed at people.
 * Each dataset's own labels are mapped to it explicitly below (`*_LABEL`):
 *
 * - train + heldout (split by a hash of the text): TweetEval's `offensive` task (SemEval-2019 OffensEval / OLID,
 *   level A: offensive → toxic, not-offensive → not) and `hate` task (SemEval-2019 HatEval: hate against immigrants or
 *   women → toxic, not-hate → not), all three of TweetEval's parts pooled, duplicates dropped; plus the Stormfront
 *   sentences of Vicomtech/hate-speech-dataset (hate → toxic, noHate → not; `relation` and `idk/skip` dropped); plus
 *   the human-written demonstration statements in ToxiGen's prompt files (`prompts/hate_*` → toxic, implicit hate
 *   about a group; `prompts/neutral_*` → not), each distinct statement once; plus ConvAbuse, users' messages to
 *   two conversational agents (all three of its splits), toxic when most of its annotators rated the message
 *   abusive (mildly, strongly or very strongly), not when most rated it not abusive, dropped otherwise.
 * - train only: ordinary requests to an assistant, not toxic (self-instruct's human-written instructions, GSM8K's
 *   test questions), so the model sees the kind of plain text the service receives; they are not in heldout.
 * - cross (the named cross-dataset split: never used to build, train or tune anything): Surge AI's toxicity sample,
 *   500 toxic and 500 non-toxic comments from several social media platforms, labelled by raters for what they found
 *   toxic. It stands for what the service sees: real comments from other platforms than the training tweets, with
 *   both classes in equal numbers and an everyday rather than a narrow hate-speech definition.
 * - cross-hatecheck (reported beside it, also never used for building): HateCheck's functional tests, hateful cases
 *   → toxic, and its hard negatives (counter-speech, negation, neutral and positive mentions of groups, profanity not
 *   aimed at anyone, reclaimed slurs and homonyms, abuse of objects) → not. Its abuse of individuals and of
 *   non-protected groups ("I hate you.", "I despise waiters.") is non-hateful to HateCheck but arguably harassment
 *   to us, so those two functionalities are left out rather than relabelled.
 *
 * Run: `RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only bench/datasets/toxicity.ts`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { evalDir, inTestShare, parseCsv, readSource, writeSplit, type LabelledExample } from './source';

export const TWEETEVAL = {
  repo: 'cardiffnlp/tweeteval',
  commit: '4fbd22cd78421f05b1ecdb4fc5725bc7a7bd8f66',
  tasks: ['offensive', 'hate'] as const,
  parts: ['train', 'val', 'test'] as const,
};
export const STORMFRONT = {
  repo: 'Vicomtech/hate-speech-dataset',
  commit: 'b802137e8314c38a8d4faa965f9908d6c8e7a84d',
  metadata: 'annotations_metadata.csv',
  folders: ['all_files'],
};
export const TOXIGEN = {
  repo: 'microsoft/TOXIGEN',
  commit: '01517e814639e0334c920a3c502036c8158aac87',
  groups: [
    'asian',
    'bisexual',
    'black',
    'chinese',
    'immigrant',
    'jewish',
    'latino',
    'lgbtq',
    'mental_disability',
    'mexican',
    'middle_east',
    'muslim',
    'native_american',
    'physical_disability',
    'trans',
    'women',
  ],
};
export const CONVABUSE = {
  repo: 'amandacurry/convabuse',
  commit: 'c0a9469f48956e868276c605d499010ea3c7c0d0',
  paths: ['train', 'valid', 'test'].map((s) => `2_splits/ConvAbuseEMNLP${s}.csv`),
};
/**
 * Ordinary requests to an assistant (train only, all non-toxic): the traffic this service actually sees, which none
 * of the abuse datasets above contains. Without them the model has no idea what a plain request looks like and
 * leans on words that merely co-occur with abuse in tweets ("let us ...", "go back"). Added to the train split only,
 * so the held-out split is exactly the pooled datasets' 20% share.
 */
export const SELF_INSTRUCT = {
  repo: 'yizhongw/self-instruct',
  commit: '0b26ccaa415992100fa32df62d41b994cf928e23',
  paths: ['data/seed_tasks.jsonl', 'human_eval/user_oriented_instructions.jsonl'],
};
export const GSM8K = {
  repo: 'openai/grade-school-math',
  commit: '3101c7d5072418e28b9008a6636bde82a006892c',
  path: 'grade_school_math/data/test.jsonl',
};
export const SURGE = {
  repo: 'surge-ai/toxicity',
  commit: 'ea80324b95ed7e3cc787bdb6faeb763fcc0ae258',
  path: 'toxicity_en.csv',
};
export const HATECHECK = {
  repo: 'paul-rottger/hatecheck-data',
  commit: 'd84302298ceeb34f4b0dde2d8a1f4932c2caa612',
  path: 'test_suite_cases.csv',
};

/** TweetEval's mapping.txt: 0/1 per task. */
export const TWEETEVAL_LABEL: Record<string, Record<string, boolean>> = {
  offensive: { '0': false, '1': true }, // not-offensive / offensive
  hate: { '0': false, '1': true }, // not-hate / hate
};
export const STORMFRONT_LABEL: Record<string, boolean | undefined> = { hate: true, noHate: false };
export const TOXIGEN_LABEL: Record<string, boolean> = { hate: true, neutral: false };
/** ConvAbuse: each annotator picks one of is_abuse.{1 not, 0 ambiguous, -1 mild, -2 strong, -3 very strong}. */
export function convabuseLabel(votes: Record<string, number>): boolean | undefined {
  const n = Object.values(votes).reduce((a, b) => a + b, 0);
  const abusive = (votes['-1'] ?? 0) + (votes['-2'] ?? 0) + (votes['-3'] ?? 0);
  if (abusive * 2 > n) return true;
  if ((votes['1'] ?? 0) * 2 > n) return false;
  return undefined;
}
export const SURGE_LABEL: Record<string, boolean> = { Toxic: true, 'Not Toxic': false };
/** HateCheck functionality → toxic or not; functionalities absent here are left out (see above). */
export function hatecheckLabel(functionality: string, gold: string): boolean | undefined {
  if (functionality === 'target_indiv_nh' || functionality === 'target_group_nh') return undefined;
  if (gold === 'hateful') return true;
  if (gold === 'non-hateful') return false;
  return undefined;
}

/** Share of the pooled training data (by hash of the text) that is held out. */
export const HELDOUT_SHARE = 0.2;

/** User mentions and links are placeholders in TweetEval (`@user`, `http`); the text is kept as the dataset has it. */
const clean = (t: string) => t.replace(/\s+/g, ' ').trim();

function tweeteval(): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const task of TWEETEVAL.tasks)
    for (const part of TWEETEVAL.parts) {
      const dir = `datasets/${task}`;
      const texts = readSource(TWEETEVAL.repo, TWEETEVAL.commit, `${dir}/${part}_text.txt`).split('\n');
      const labels = readSource(TWEETEVAL.repo, TWEETEVAL.commit, `${dir}/${part}_labels.txt`).split('\n');
      labels.forEach((l, i) => {
        const label = TWEETEVAL_LABEL[task]![l.trim()];
        const text = clean(texts[i] ?? '');
        if (label !== undefined && text) out.push({ text, label, source: `tweeteval/${task}` });
      });
    }
  return out;
}

function stormfront(): LabelledExample[] {
  const rows = parseCsv(readSource(STORMFRONT.repo, STORMFRONT.commit, STORMFRONT.metadata));
  const out: LabelledExample[] = [];
  for (const [fileId, , , , gold] of rows.slice(1)) {
    const label = STORMFRONT_LABEL[gold?.trim() ?? ''];
    if (label === undefined || !fileId) continue;
    const text = clean(readSource(STORMFRONT.repo, STORMFRONT.commit, `all_files/${fileId}.txt`));
    if (text) out.push({ text, label, source: 'stormfront' });
  }
  return out;
}

/** ToxiGen's prompt files: each line is a prompt of `- statement\n` items (a literal backslash-n between them). */
function toxigen(): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const kind of Object.keys(TOXIGEN_LABEL))
    for (const group of TOXIGEN.groups) {
      if (kind === 'neutral' && group === 'trans') continue; // the one group without a neutral prompt file
      const raw = readSource(TOXIGEN.repo, TOXIGEN.commit, `prompts/${kind}_${group}_1k.txt`);
      const statements = new Set(
        raw
          .split(/\\n|\n/)
          .map((s) => clean(s.replace(/^\s*-\s*/, '')))
          .filter((s) => s.length > 3),
      );
      for (const text of statements) out.push({ text, label: TOXIGEN_LABEL[kind]!, source: `toxigen/${kind}` });
    }
  return out;
}

function convabuse(): LabelledExample[] {
  const out: LabelledExample[] = [];
  for (const path of CONVABUSE.paths) {
    const [head, ...rows] = parseCsv(readSource(CONVABUSE.repo, CONVABUSE.commit, path));
    const user = head!.indexOf('user');
    const voteCols = head!
      .map((h, i) => ({ m: /^Annotator\d+_is_abuse\.(-?\d)$/.exec(h), i }))
      .filter((c) => c.m !== null)
      .map((c) => ({ value: c.m![1]!, i: c.i }));
    for (const r of rows) {
      const votes: Record<string, number> = {};
      for (const c of voteCols) if (r[c.i] === '1') votes[c.value] = (votes[c.value] ?? 0) + 1;
      const label = convabuseLabel(votes);
      const text = clean(r[user] ?? '');
      if (label !== undefined && text) out.push({ text, label, source: 'convabuse' });
    }
  }
  return out;
}

/** Self-instruct's human-written instructions (with their first input, if any) and GSM8K's questions: not toxic. */
function benignRequests(): LabelledExample[] {
  const out: LabelledExample[] = [];
  const lines = (repo: string, commit: string, path: string) =>
    readSource(repo, commit, path)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const path of SELF_INSTRUCT.paths)
    for (const task of lines(SELF_INSTRUCT.repo, SELF_INSTRUCT.commit, path)) {
      const input = (task.instances as { input?: string }[] | undefined)?.[0]?.input ?? '';
      const text = clean(`${String(task.instruction ?? '')}\n${input}`);
      if (text) out.push({ text, label: false, source: 'self-instruct' });
    }
  for (const q of lines(GSM8K.repo, GSM8K.commit, GSM8K.path)) {
    const text = clean(String(q.question ?? ''));
    if (text) out.push({ text, label: false, source: 'gsm8k' });
  }
  return out;
}

function surge(): LabelledExample[] {
  const rows = parseCsv(readSource(SURGE.repo, SURGE.commit, SURGE.path));
  return rows
    .slice(1)
    .map(([text, gold]) => ({ text: clean(text ?? ''), label: SURGE_LABEL[gold?.trim() ?? ''], source: 'surge-ai' }))
    .filter((e): e is LabelledExample => e.text !== '' && e.label !== undefined);
}

function hatecheck(): LabelledExample[] {
  const rows = parseCsv(readSource(HATECHECK.repo, HATECHECK.commit, HATECHECK.path));
  const head = rows[0]!;
  const col = (name: string) => head.indexOf(name);
  const [f, t, g] = [col('functionality'), col('test_case'), col('label_gold')];
  const out: LabelledExample[] = [];
  for (const r of rows.slice(1)) {
    const label = hatecheckLabel(r[f]!, r[g]!);
    const text = clean(r[t] ?? '');
    if (label !== undefined && text) out.push({ text, label, source: `hatecheck/${r[f]}` });
  }
  return out;
}

/** Drops repeated texts, and texts seen with both labels (the annotators disagreed). */
function dedupe(examples: LabelledExample[]): LabelledExample[] {
  const byText = new Map<string, LabelledExample | null>();
  for (const e of examples) {
    const key = e.text.toLowerCase();
    const seen = byText.get(key);
    if (seen === undefined) byText.set(key, e);
    else if (seen !== null && seen.label !== e.label) byText.set(key, null);
  }
  return [...byText.values()].filter((e): e is LabelledExample => e !== null);
}

export function prepare(): Record<string, LabelledExample[]> {
  const pooled = dedupe([...tweeteval(), ...stormfront(), ...toxigen(), ...convabuse()]);
  const cross = dedupe(surge());
  const crossHatecheck = dedupe(hatecheck());
  return {
    train: [...pooled.filter((e) => !inTestShare(e.text, HELDOUT_SHARE)), ...dedupe(benignRequests())],
    heldout: pooled.filter((e) => inTestShare(e.text, HELDOUT_SHARE)),
    cross,
    'cross-hatecheck': crossHatecheck,
  };
}

if (require.main === module) {
  const sets = prepare();
  for (const [split, examples] of Object.entries(sets)) {
    const file =
      split === 'train' || split === 'heldout' || split === 'cross'
        ? writeSplit('toxicity', split, examples)
        : join(evalDir(), 'toxicity', `${split}.jsonl`);
    if (!(split === 'train' || split === 'heldout' || split === 'cross'))
      writeFileSync(file, examples.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const pos = examples.filter((e) => e.label).length;
    process.stdout.write(`${split}: ${examples.length} examples, ${pos} toxic → ${file}\n`);
  }
}
