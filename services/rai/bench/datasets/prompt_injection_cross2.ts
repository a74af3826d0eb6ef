/**
 * A second, fresh cross-dataset split for prompt injection ("cross2"), measured once (issue 31): dataset B had been
 * measured several times while the check was built, so it was no longer untouched. Nothing here overlaps the sources
 * of dataset A or B (or their origins), and every text is deduplicated against train, heldout and cross (normalised
 * text, and a text sharing at least half its word 4-grams with one of theirs is dropped).
 *
 * Labels follow each source's own definitions, decided before measuring:
 * - attacks: the examples of Arcanum's prompt-injection taxonomy (techniques and evasions), promptmap's jailbreak,
 *   prompt-stealing and distraction rules (its harmful, hate and social-bias rules are not used), LLM Guard's
 *   prompt-injection test cases marked invalid, the prompts of The Big Prompt Library's Jailbreak folder,
 *   of TakSec's Prompt-Injection-Everywhere and of LLM-Jailbreaks (each fenced block, defences excluded), and
 *   PayloadsAllTheThings' direct prompt injections of override, role and extraction kinds;
 * - benign: LLM Guard's test cases marked valid, the curated awesome-chatgpt-prompts list of 2023 (role prompts,
 *   "I want you to act as …"; its one DAN entry dropped), and the first human turn of a sample of Anthropic HH-RLHF
 *   harmless-base red-team conversations (harmful requests, which are not prompt injections: hard negatives).
 *
 * Run after prompt_injection.ts (it reads train, heldout and cross to deduplicate against them):
 *   `RAI_DATASETS_DIR=<folder of snapshots> npx ts-node --transpile-only bench/datasets/prompt_injection_cross2.ts`.
 */
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';

import { dedupe, dropNearDuplicates, normalise } from './near_duplicates';
import {
  inTestShare,
  listSource,
  parseCsv,
  readPrepared,
  readSource,
  readSourceBytes,
  writeSplit,
  type LabelledExample,
} from './source';

export const SOURCES = {
  promptmap: { repo: 'utkusen/promptmap', commit: 'd305132e38f28b4cdca5c5b4586f11904ed1836d' },
  llmGuard: { repo: 'protectai/llm-guard', commit: '53af270c69316ed82cb71ba7b19d11b55bda3151' },
  bigPromptLibrary: { repo: '0xeb/TheBigPromptLibrary', commit: '655667d2dd43bad65f189ec49d8606bf3e8d967e' },
  awesomePrompts: { repo: 'f/awesome-chatgpt-prompts', commit: '82f15563c9284c01ca54f0b915ae1aeda5a0fc3a' },
  hhRlhf: { repo: 'anthropics/hh-rlhf', commit: '354e5c3cb8960630860dd5774a6ac2a58313bf4d' },
  takSec: { repo: 'TakSec/Prompt-Injection-Everywhere', commit: '9b69c8ae7958f68d562d484103a7b14b66983d63' },
  llmJailbreaks: { repo: 'langgptai/LLM-Jailbreaks', commit: 'f866ee1bb86ceeee3c8675925ec6da02f16f697d' },
  arcanum: { repo: 'Arcanum-Sec/arc_pi_taxonomy', commit: 'e02cf5b6e202f195c6b6c01484e99519f797acc6' },
  payloads: { repo: 'swisskyrepo/PayloadsAllTheThings', commit: 'f9fa51417886ac11476cb62db2dff21773dc570b' },
} as const;

/** Share of HH-RLHF harmless-base test conversations taken (hash of the text). */
const HH_SHARE = 0.2;

const ex = (text: string, label: boolean, source: string): LabelledExample => ({ text: text.trim(), label, source });

const ATTACK_TYPES = new Set(['jailbreak', 'prompt_stealing', 'distraction']);

function promptmap(): LabelledExample[] {
  const { repo, commit } = SOURCES.promptmap;
  const out: LabelledExample[] = [];
  for (const path of listSource(repo, commit, 'rules/').filter((p) => p.endsWith('.yaml'))) {
    const rule = parseYaml(readSource(repo, commit, path)) as { type?: string; prompt?: string };
    if (rule.type && ATTACK_TYPES.has(rule.type) && rule.prompt)
      out.push(ex(rule.prompt, true, `promptmap-${rule.type}`));
  }
  return out;
}

/** Reads one Python string literal (or adjacent literals) starting at `i`; returns the text and the end index. */
function pythonStrings(src: string, i: number): { text: string; end: number } | undefined {
  let text = '';
  let found = false;
  for (;;) {
    while (/\s/.test(src[i] ?? '')) i++;
    if (src[i] === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const q = src[i];
    if (q !== '"' && q !== "'") break;
    found = true;
    i++;
    while (i < src.length && src[i] !== q) {
      if (src[i] === '\\') {
        const n = src[i + 1]!;
        text += n === 'n' ? '\n' : n === 't' ? '\t' : n;
        i += 2;
      } else text += src[i++];
    }
    i++;
  }
  return found ? { text, end: i } : undefined;
}

function llmGuard(): LabelledExample[] {
  const { repo, commit } = SOURCES.llmGuard;
  const src = readSource(repo, commit, 'tests/input_scanners/test_prompt_injection.py');
  const out: LabelledExample[] = [];
  const re = /MatchType\.\w+,/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const s = pythonStrings(src, m.index + m[0].length);
    if (!s) continue;
    const verdict = /^\s*,\s*(True|False)\b/.exec(src.slice(s.end));
    if (!verdict) continue;
    const valid = verdict[1] === 'True';
    out.push(ex(s.text, !valid, valid ? 'llm-guard-benign' : 'llm-guard-injection'));
  }
  return out;
}

function bigPromptLibrary(): LabelledExample[] {
  const { repo, commit } = SOURCES.bigPromptLibrary;
  const out: LabelledExample[] = [];
  for (const path of listSource(repo, commit, 'Jailbreak/').filter(
    (p) => p.endsWith('.md') && !p.endsWith('README.md'),
  )) {
    for (const b of fencedBlocks(readSource(repo, commit, path)))
      out.push(ex(b.text, true, 'big-prompt-library-jailbreak'));
  }
  return out;
}

/** Fenced blocks of a markdown file, each with the last heading above it. */
function fencedBlocks(md: string): { heading: string; text: string }[] {
  const out: { heading: string; text: string }[] = [];
  let heading = '';
  let block: string[] | undefined;
  for (const line of md.split('\n')) {
    if (/^\s*```/.test(line)) {
      if (block) {
        out.push({ heading, text: block.join('\n') });
        block = undefined;
      } else block = [];
    } else if (block) block.push(line.replace(/^ {4}/, ''));
    else if (/^#{1,6} /.test(line)) heading = line;
  }
  return out.filter((b) => b.text.trim() !== '');
}

/** Attack collections' READMEs: every fenced block is an attack, except the one a heading calls a protection. */
function markdownAttacks(repo: string, commit: string, path: string, source: string): LabelledExample[] {
  return fencedBlocks(readSource(repo, commit, path))
    .filter((b) => !/protection|defen[cs]e/i.test(b.heading))
    .map((b) => ex(b.text, true, source));
}

/** PayloadsAllTheThings' direct prompt injection examples: the Zapier block and the table rows of override kinds. */
const PAYLOAD_STRATEGIES =
  /^(Jailbreak|Instruction Overriding|Role Switching|Role Injection|Data Extraction|RCE Test w\/ Jailbreak)$/;
function payloadsAllTheThings(): LabelledExample[] {
  const { repo, commit } = SOURCES.payloads;
  const md = readSource(repo, commit, 'Prompt Injection/README.md');
  const direct = md.slice(md.indexOf('## Direct Prompt Injection'), md.indexOf('## Indirect Prompt Injection'));
  const out = fencedBlocks(direct).map((b) => ex(b.text, true, 'payloads-all-the-things'));
  for (const line of direct.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const prompt = /^`(.*)`$/.exec(cells[3] ?? '')?.[1];
    if (prompt && PAYLOAD_STRATEGIES.test(cells[1] ?? '')) out.push(ex(prompt, true, 'payloads-all-the-things'));
  }
  return out;
}

/** Arcanum's prompt-injection taxonomy: the examples of its techniques and evasions (its intents are goals, unused). */
function arcanum(): LabelledExample[] {
  const { repo, commit } = SOURCES.arcanum;
  const taxonomy = JSON.parse(readSource(repo, commit, 'docs/data/taxonomy.json')) as Record<
    string,
    { examples?: string[] }[]
  >;
  const out: LabelledExample[] = [];
  for (const part of ['techniques', 'evasions'] as const) {
    for (const entry of taxonomy[part] ?? [])
      for (const e of entry.examples ?? []) out.push(ex(e, true, `arcanum-${part}`));
  }
  return out;
}

function awesomePrompts(): LabelledExample[] {
  const { repo, commit } = SOURCES.awesomePrompts;
  const [, ...rows] = parseCsv(readSource(repo, commit, 'prompts.csv'));
  return rows
    .filter((r) => r[1] && !/\bDAN\b|unconstrained|jailbreak/i.test(r[0] ?? ''))
    .map((r) => ex(r[1]!, false, 'awesome-chatgpt-prompts'));
}

function hhHarmless(): LabelledExample[] {
  const { repo, commit } = SOURCES.hhRlhf;
  const raw = gunzipSync(readSourceBytes(repo, commit, 'harmless-base/test.jsonl.gz')).toString('utf8');
  const out: LabelledExample[] = [];
  for (const line of raw.split('\n')) {
    if (!line.trim()) continue;
    const chosen = (JSON.parse(line) as { chosen: string }).chosen;
    const first = /Human:([\s\S]*?)(?:\n\nAssistant:|$)/.exec(chosen)?.[1]?.trim();
    if (first && inTestShare(normalise(first), HH_SHARE)) out.push(ex(first, false, 'hh-rlhf-harmless-first-turn'));
  }
  return out;
}

export function prepareCross2(): LabelledExample[] {
  const existing = readPrepared('prompt_injection', ['train', 'heldout', 'cross'], 'prompt_injection.ts');
  const seen = new Set(existing.map((e) => normalise(e.text)));
  const fresh = dedupe(
    [
      ...promptmap(),
      ...llmGuard(),
      ...bigPromptLibrary(),
      ...markdownAttacks(SOURCES.takSec.repo, SOURCES.takSec.commit, 'README.md', 'taksec-prompt-injection-everywhere'),
      ...markdownAttacks(
        SOURCES.llmJailbreaks.repo,
        SOURCES.llmJailbreaks.commit,
        'README.md',
        'langgpt-llm-jailbreaks',
      ),
      ...payloadsAllTheThings(),
      ...arcanum(),
      ...awesomePrompts(),
      ...hhHarmless(),
    ],
    seen,
  );
  return dropNearDuplicates(fresh, existing);
}

if (require.main === module) {
  const examples = prepareCross2();
  const file = writeSplit('prompt_injection', 'cross2', examples);
  const bySource = new Map<string, number>();
  for (const e of examples) bySource.set(e.source, (bySource.get(e.source) ?? 0) + 1);
  const pos = examples.filter((e) => e.label).length;
  process.stdout.write(
    `cross2: ${examples.length} (${pos} attacks) → ${file}\n  ${[...bySource].map(([s, n]) => `${s} ${n}`).join(', ')}\n`,
  );
}
