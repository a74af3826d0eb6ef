/**
 * Prepares the secrets evaluation sets (label = the text holds a secret) from a folder of repository snapshots
 * (`RAI_DATASETS_DIR`, see source.ts), each read at a pinned commit:
 *
 * - train / heldout: Samsung/CredSweeper's sample files (MIT), one example per line (a private key block as one
 *   example), labelled by the findings CredSweeper's own regression output expects there (severity high or medium;
 *   lines with only info/low findings such as UUIDs, salts, S3 bucket names are left out as ambiguous); every other
 *   line of a sample is a negative (many are look-alikes the samples were written to trip scanners with). Realistic
 *   negatives are added: CredSweeper's own Python source (code full of `password`/`token` identifiers), lockfile
 *   hashes (NVIDIA/garak's yarn.lock, Apache-2.0; gitleaks' go.sum, MIT) and prose (openai/grade-school-math, MIT).
 *   Split by a hash of the file a line comes from (samples) or of the text (the rest): 50 % heldout.
 * - cross: praetorian-inc/noseyparker's rules (Apache-2.0): the `examples` of the rules in its default rule set
 *   (secrets) are positives, the `negative_examples` of every rule are negatives, plus chunks of its Cargo.lock
 *   (checksums). Neither gitleaks' rules nor ours were built or tuned on them.
 *
 *   RAI_DATASETS_DIR=<snapshots> npx ts-node --transpile-only bench/datasets/secrets.ts
 */
import { parse as parseYaml } from 'yaml';

import { inTestShare, listSource, readSource, writeSplit, type LabelledExample } from './source';

export const SECRETS_SOURCES = {
  credsweeper: { repo: 'Samsung/CredSweeper', commit: '1ed2ca5cdd480667b938024464a37589b9af8564' },
  garak: { repo: 'NVIDIA/garak', commit: 'cafbe992780df70015de7295ca026b70c4629ada' },
  gitleaks: { repo: 'gitleaks/gitleaks', commit: 'b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b' },
  gsm8k: { repo: 'openai/grade-school-math', commit: '3101c7d5072418e28b9008a6636bde82a006892c' },
  noseyparker: { repo: 'praetorian-inc/noseyparker', commit: '2e6e7f36ce36619852532bbe698d8cb7a26d2da7' },
} as const;

const HELDOUT_SHARE = 0.5;

/** Text that is not binary: no NUL, few replacement characters. */
const isText = (s: string) => !s.includes('\u0000') && (s.match(/\uFFFD/g)?.length ?? 0) < 3;
/** A line worth an example: some non-space content that is not only punctuation. */
const meaningful = (line: string) => line.trim().length >= 6 && /[A-Za-z0-9]{3}/.test(line);

interface CredSweeperFinding {
  rule: string;
  severity: string;
  line_data_list: { path: string; line_num: number }[];
}

/** Lines of CredSweeper's samples: per `path`, the line numbers holding a secret and those left out as ambiguous. */
interface SampleLabels {
  positive: Set<number>;
  ambiguous: Set<number>;
  /** A finding spread over several lines (a key in a log, a multi-line value): first line → last line. */
  blocks: Map<number, number>;
}

function credSweeperLabels(): Map<string, SampleLabels> {
  const { repo, commit } = SECRETS_SOURCES.credsweeper;
  const labels = new Map<string, SampleLabels>();
  const add = (findings: CredSweeperFinding[], onlyDocFiles: boolean) => {
    for (const f of findings) {
      for (const l of f.line_data_list) {
        const path = l.path.replace(/^\.\//, '');
        if (path.includes(':') || !path.startsWith('tests/samples/')) continue; // inside archives
        const doc = path.startsWith('tests/samples/doc_');
        if (onlyDocFiles !== doc) continue;
        const entry = labels.get(path) ?? {
          positive: new Set<number>(),
          ambiguous: new Set<number>(),
          blocks: new Map(),
        };
        labels.set(path, entry);
        (f.severity === 'high' || f.severity === 'medium' ? entry.positive : entry.ambiguous).add(l.line_num);
      }
      const nums = f.line_data_list.map((l) => l.line_num);
      const [first, last] = [Math.min(...nums), Math.max(...nums)];
      const path = f.line_data_list[0]!.path.replace(/^\.\//, '');
      // Lines of one multi-line finding far apart (a key id and its secret in different places) stay separate.
      if (last - first >= 1 && last - first === new Set(nums).size - 1 && last - first < 150)
        labels.get(path)?.blocks.set(first, Math.max(last, labels.get(path)!.blocks.get(first) ?? 0));
    }
  };
  add(JSON.parse(readSource(repo, commit, 'tests/data/output.json')) as CredSweeperFinding[], false);
  add(JSON.parse(readSource(repo, commit, 'tests/data/doc.json')) as CredSweeperFinding[], true);
  return labels;
}

function credSweeperExamples(): { example: LabelledExample; key: string }[] {
  const { repo, commit } = SECRETS_SOURCES.credsweeper;
  const labels = credSweeperLabels();
  const out: { example: LabelledExample; key: string }[] = [];
  for (const path of listSource(repo, commit, 'tests/samples')) {
    let text: string;
    try {
      text = readSource(repo, commit, path);
    } catch {
      continue;
    }
    if (!isText(text)) continue;
    const { positive, ambiguous, blocks } = labels.get(path) ?? {
      positive: new Set<number>(),
      ambiguous: new Set<number>(),
      blocks: new Map<number, number>(),
    };
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const first = i + 1;
      let last = blocks.get(first) ?? first;
      // A private key block is one example, from its BEGIN line to its END line.
      if (last === first && /-----BEGIN [A-Z ]*PRIVATE KEY/.test(lines[i]!)) {
        const end = lines.findIndex((l, j) => j > i && /-----END [A-Z ]*PRIVATE KEY/.test(l));
        if (end > 0 && end - i < 100) last = end + 1;
      }
      const chunk = lines.slice(i, last).join('\n');
      i = last - 1;
      const numbers = Array.from({ length: last - first + 1 }, (_, k) => first + k);
      const isPositive = numbers.some((n) => positive.has(n));
      const isAmbiguous = numbers.some((n) => ambiguous.has(n));
      if (!meaningful(chunk) || (isAmbiguous && !isPositive)) continue;
      out.push({
        example: { text: chunk, label: isPositive, source: `credsweeper:${path.slice('tests/samples/'.length)}` },
        key: path,
      });
    }
  }
  return out;
}

/** Consecutive runs of `size` meaningful lines of a text, as negatives. */
function chunks(text: string, size: number, source: string, max: number): LabelledExample[] {
  const lines = text.split(/\r?\n/).filter(meaningful);
  const out: LabelledExample[] = [];
  for (let i = 0; i + size <= lines.length && out.length < max; i += size)
    out.push({ text: lines.slice(i, i + size).join('\n'), label: false, source });
  return out;
}

function realisticNegatives(): LabelledExample[] {
  const out: LabelledExample[] = [];
  const cs = SECRETS_SOURCES.credsweeper;
  // Source code of the scanner itself (not its tests or samples): identifiers such as password, token, api_key.
  const pyFiles = listSource(cs.repo, cs.commit, 'credsweeper').filter((p) => p.endsWith('.py'));
  for (const p of pyFiles) out.push(...chunks(readSource(cs.repo, cs.commit, p), 4, `credsweeper-code:${p}`, 6));
  const garak = SECRETS_SOURCES.garak;
  out.push(...chunks(readSource(garak.repo, garak.commit, 'garak-report/yarn.lock'), 4, 'garak:yarn.lock', 250));
  const gl = SECRETS_SOURCES.gitleaks;
  out.push(...chunks(readSource(gl.repo, gl.commit, 'go.sum'), 3, 'gitleaks:go.sum', 120));
  const gsm = SECRETS_SOURCES.gsm8k;
  const questions = readSource(gsm.repo, gsm.commit, 'grade_school_math/data/test.jsonl')
    .split('\n')
    .filter(Boolean)
    .slice(0, 300)
    .map((l) => (JSON.parse(l) as { question: string }).question);
  out.push(...questions.map((q) => ({ text: q, label: false, source: 'gsm8k:test' })));
  return out;
}

interface NoseyParkerRule {
  id: string;
  examples?: string[];
  negative_examples?: string[];
}

function noseyParkerExamples(): LabelledExample[] {
  const { repo, commit } = SECRETS_SOURCES.noseyparker;
  const root = 'crates/noseyparker/data/default/builtin';
  const ruleset = parseYaml(readSource(repo, commit, `${root}/rulesets/default.yml`)) as {
    rulesets: { id: string; include_rule_ids: string[] }[];
  };
  const secretRules = new Set(ruleset.rulesets.find((r) => r.id === 'default')!.include_rule_ids);
  const out: LabelledExample[] = [];
  for (const path of listSource(repo, commit, `${root}/rules`)) {
    const { rules } = parseYaml(readSource(repo, commit, path)) as { rules: NoseyParkerRule[] };
    for (const rule of rules) {
      if (secretRules.has(rule.id))
        for (const text of rule.examples ?? []) out.push({ text, label: true, source: `noseyparker:${rule.id}` });
      for (const text of rule.negative_examples ?? [])
        out.push({ text, label: false, source: `noseyparker:${rule.id}:negative` });
    }
  }
  out.push(...chunks(readSource(repo, commit, 'Cargo.lock'), 4, 'noseyparker:Cargo.lock', 150));
  return out;
}

function dedupe(examples: LabelledExample[]): LabelledExample[] {
  const seen = new Map<string, LabelledExample>();
  for (const e of examples) {
    const prior = seen.get(e.text);
    // The same text labelled both ways (a line repeated in a positive and a negative sample) counts as a secret.
    if (!prior || (e.label && !prior.label)) seen.set(e.text, e);
  }
  return [...seen.values()];
}

function main() {
  const train: LabelledExample[] = [];
  const heldout: LabelledExample[] = [];
  for (const { example, key } of credSweeperExamples())
    (inTestShare(key, HELDOUT_SHARE) ? heldout : train).push(example);
  for (const e of realisticNegatives()) (inTestShare(e.source + e.text, HELDOUT_SHARE) ? heldout : train).push(e);
  const trainTexts = new Set(train.map((e) => e.text));
  const splits = {
    train: dedupe(train),
    heldout: dedupe(heldout).filter((e) => !trainTexts.has(e.text)),
    cross: dedupe(noseyParkerExamples()),
  };
  for (const [split, examples] of Object.entries(splits)) {
    const file = writeSplit('secrets', split as 'train' | 'heldout' | 'cross', examples);
    process.stdout.write(`${file}: ${examples.length} examples, ${examples.filter((e) => e.label).length} positive\n`);
  }
}

if (require.main === module) main();
