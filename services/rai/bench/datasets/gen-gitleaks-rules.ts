/**
 * Generates `src/checks/secrets/gitleaks-rules.generated.ts` from gitleaks' rule set (`config/gitleaks.toml`, MIT)
 * read at a pinned commit out of a folder of repository snapshots (`RAI_DATASETS_DIR`, see source.ts).
 *
 *   RAI_DATASETS_DIR=<snapshots> npx ts-node --transpile-only bench/datasets/gen-gitleaks-rules.ts
 *
 * Go RE2 syntax is translated to JavaScript: `(?i)` anywhere and `(?i:…)` become the `i` flag (JS of Node 20 has no
 * inline modifiers, so the whole pattern turns case-insensitive: a slight widening, counted as "approximated"),
 * `(?-i:…)` becomes `(?:…)` (same widening), `(?s:.)` becomes `[\s\S]`, `\z` becomes `$` (no `m` flag: end of
 * input), `[:alnum:]` inside a class becomes `a-zA-Z0-9`, `(?P<n>` becomes `(?<n>`. A pattern JavaScript still
 * cannot compile is dropped and counted; so are rules that only apply to file paths (a text has none) and allowlists
 * that need a path.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { readSource } from './source';

export const GITLEAKS_REPO = 'gitleaks/gitleaks';
export const GITLEAKS_COMMIT = 'b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b';
const GITLEAKS_PATH = 'config/gitleaks.toml';

type TomlValue = string | number | string[];
interface Table {
  [key: string]: TomlValue;
}
interface RawRule {
  fields: Table;
  allowlists: Table[];
}

/** A reader for the subset of TOML gitleaks.toml uses: tables, arrays of tables, strings, numbers, string arrays. */
export function parseGitleaksToml(text: string): { global: Table; rules: RawRule[] } {
  const global: Table = {};
  const rules: RawRule[] = [];
  let current: Table = {};
  const lines = text.split('\n');
  const readString = (s: string): [string, string] => {
    if (s.startsWith("'''")) {
      const end = s.indexOf("'''", 3);
      return [s.slice(3, end), s.slice(end + 3)];
    }
    if (s.startsWith("'")) {
      const end = s.indexOf("'", 1);
      return [s.slice(1, end), s.slice(end + 1)];
    }
    if (s.startsWith('"')) {
      let out = '';
      let i = 1;
      for (; i < s.length && s[i] !== '"'; i++) {
        if (s[i] === '\\') {
          const n = s[++i]!;
          out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
        } else out += s[i];
      }
      return [out, s.slice(i + 1)];
    }
    throw new Error(`unsupported TOML value: ${s.slice(0, 40)}`);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line === '[allowlist]') current = global;
    else if (line === '[[rules]]') rules.push({ fields: (current = {}), allowlists: [] });
    else if (line === '[[rules.allowlists]]') rules[rules.length - 1]!.allowlists.push((current = {}));
    else if (line.startsWith('[')) throw new Error(`unsupported TOML table: ${line}`);
    else {
      const eq = line.indexOf('=');
      const key = line.slice(0, eq).trim();
      let rest = line.slice(eq + 1).trim();
      if (rest.startsWith('[')) {
        const values: string[] = [];
        rest = rest.slice(1).trim();
        for (;;) {
          while (rest === '' || rest.startsWith('#')) rest = lines[++i]!.trim();
          if (rest.startsWith(']')) break;
          const [v, after] = readString(rest);
          values.push(v);
          rest = after.trim().replace(/^,/, '').trim();
        }
        current[key] = values;
      } else if (/^[\d.]+$/.test(rest)) current[key] = Number(rest);
      else current[key] = readString(rest)[0];
    }
  }
  return { global, rules };
}

export interface TranslatedRegex {
  source: string;
  flags: string;
  approximated: boolean;
}

/** Go RE2 → JavaScript, or null when JavaScript cannot compile the result. */
export function translateRe2(re: string): TranslatedRegex | null {
  let src = re;
  let flags = '';
  let approximated = false;
  if (/\(\?i\)|\(\?i:/.test(src)) {
    flags += 'i';
    approximated = !src.startsWith('(?i)') || src.indexOf('(?i)', 1) >= 0 || src.includes('(?i:');
    src = src.replace(/\(\?i\)/g, '').replace(/\(\?i:/g, '(?:');
  }
  if (src.includes('(?-i:')) {
    approximated = true;
    src = src.replace(/\(\?-i:/g, '(?:');
  }
  src = src
    .replace(/\(\?s:\.\)/g, '[\\s\\S]')
    .replace(/\\z/g, '$')
    .replace(/\[:alnum:\]/g, 'a-zA-Z0-9')
    .replace(/\(\?P</g, '(?<');
  // A class opened by `[[` after the POSIX rewrite (`[a-zA-Z0-9]` inside `[...]`) becomes one class.
  src = src.replace(/\[\[a-zA-Z0-9\]\]/g, '[a-zA-Z0-9]');
  try {
    new RegExp(src, flags);
  } catch {
    return null;
  }
  return { source: src, flags, approximated };
}

interface GeneratedAllowlist {
  target: 'secret' | 'match' | 'line';
  regexes: { source: string; flags: string }[];
  stopwords: string[];
}

function allowlistOf(t: Table, stats: { allowlistsDropped: number }): GeneratedAllowlist | null {
  if (t.paths || t.path || t.commits) {
    // Conditions on the file path or commit cannot hold for a text on its own.
    stats.allowlistsDropped++;
    return null;
  }
  const regexes = ((t.regexes as string[] | undefined) ?? [])
    .map(translateRe2)
    .filter((r): r is TranslatedRegex => r !== null)
    .map(({ source, flags }) => ({ source, flags }));
  return {
    target: ((t.regexTarget as string | undefined) ?? 'secret') as GeneratedAllowlist['target'],
    regexes,
    stopwords: ((t.stopwords as string[] | undefined) ?? []).map((s) => s.toLowerCase()),
  };
}

export function generate(toml: string) {
  const { global, rules } = parseGitleaksToml(toml);
  const stats = {
    rules: rules.length,
    kept: 0,
    approximated: 0,
    pathOnly: 0,
    pathScoped: 0,
    untranslatable: 0,
    allowlistsDropped: 0,
  };
  const dropped: string[] = [];
  const out = [];
  for (const { fields, allowlists } of rules) {
    const id = fields.id as string;
    if (!fields.regex) {
      stats.pathOnly++;
      dropped.push(`${id} (path only)`);
      continue;
    }
    if (fields.path) {
      stats.pathScoped++;
      dropped.push(`${id} (needs a file path)`);
      continue;
    }
    const re = translateRe2(fields.regex as string);
    if (!re) {
      stats.untranslatable++;
      dropped.push(`${id} (regex JavaScript cannot express)`);
      continue;
    }
    if (re.approximated) stats.approximated++;
    stats.kept++;
    out.push({
      id,
      source: re.source,
      flags: re.flags,
      keywords: ((fields.keywords as string[] | undefined) ?? []).map((k) => k.toLowerCase()),
      ...(fields.entropy !== undefined ? { entropy: fields.entropy as number } : {}),
      ...(fields.secretGroup !== undefined ? { secretGroup: fields.secretGroup as number } : {}),
      allowlists: allowlists.map((a) => allowlistOf(a, stats)).filter((a) => a !== null),
    });
  }
  const globalAllowlist = allowlistOf({ ...global, paths: undefined } as unknown as Table, stats);
  return { rules: out, globalAllowlist, stats, dropped };
}

async function main() {
  const toml = readSource(GITLEAKS_REPO, GITLEAKS_COMMIT, GITLEAKS_PATH);
  const { rules, globalAllowlist, stats, dropped } = generate(toml);
  const header = `// GENERATED by services/rai/bench/datasets/gen-gitleaks-rules.ts: do not edit by hand.
//
// Source: https://github.com/${GITLEAKS_REPO} ${GITLEAKS_PATH} at commit ${GITLEAKS_COMMIT}
// Rules: ${stats.rules} in the source; ${stats.kept} kept (${stats.approximated} with case-insensitivity widened to the
// whole pattern, as Node's RegExp has no inline modifiers); dropped: ${stats.pathOnly} path-only, ${stats.pathScoped}
// scoped to file paths, ${stats.untranslatable} not expressible in JavaScript; ${stats.allowlistsDropped} allowlists
// that need a file path or commit dropped.${dropped.length ? `\n// Dropped rules: ${dropped.join(', ')}.` : ''}
//
// gitleaks is under the MIT License:
//
// MIT License
//
// Copyright (c) 2019 Zachary Rice
//
// Permission is hereby granted, free of charge, to any person obtaining a copy
// of this software and associated documentation files (the "Software"), to deal
// in the Software without restriction, including without limitation the rights
// to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
// copies of the Software, and to permit persons to whom the Software is
// furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all
// copies or substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
// IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
// FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
// AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
// LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
// OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
// SOFTWARE.
import type { GitleaksTable } from './gitleaks-types';

export const GITLEAKS_SOURCE = { repo: '${GITLEAKS_REPO}', commit: '${GITLEAKS_COMMIT}', path: '${GITLEAKS_PATH}' };

`;
  const table = { globalAllowlist, rules };
  const body = `export const GITLEAKS_TABLE: GitleaksTable = ${JSON.stringify(table, null, 1)};\n`;
  const file = join(__dirname, '..', '..', 'src', 'checks', 'secrets', 'gitleaks-rules.generated.ts');
  // prettier is loaded only here, so that tests can import the translator without it.
  const { format, resolveConfig } = await import('prettier');
  const options = (await resolveConfig(file)) ?? {};
  writeFileSync(file, await format(header + body, { ...options, filepath: file }));
  process.stdout.write(`${file}: ${JSON.stringify(stats)}\n`);
  if (dropped.length) process.stdout.write(`dropped: ${dropped.join(', ')}\n`);
}

if (require.main === module) void main();
