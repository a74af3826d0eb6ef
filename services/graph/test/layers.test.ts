/**
 * The graph service's folders form layers, like the other services': imports between folders of `src/` go one way
 * only (tasks → graph → providers → rag; graph → crawl, pipeline; crawl and providers → pipeline), so no
 * two folders import each other, directly or through a third. Read from the sources, type-only imports included.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return name.endsWith('.ts') ? [path] : [];
    });
}

/** The folder of `src/` a file is in; null for the files at its root (app, main, config, openapi). */
const folderOf = (file: string): string | null => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0]! : null;
};

/** Every relative module a file imports or re-exports (static, type-only, dynamic or required). */
function relativeImports(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\bfrom\s+['"](\.{1,2}\/[^'"]*)['"]/g,
    /\bimport\s+['"](\.{1,2}\/[^'"]*)['"]/g,
    /\b(?:import|require)\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) out.push(m[1]!);
  return out;
}

/** `from → to → an example "file → module"` for every import that crosses from one folder of `src/` to another. */
function folderEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(`${SRC}/`)) continue;
      const to = folderOf(target);
      if (!to || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${relative(SRC, file)} → ${spec}`);
    }
  }
  return edges;
}

/** A loop of folders (first folder repeated at the end), or null when the folders form layers. */
function folderLoop(edges: Map<string, Map<string, string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (folder: string): string[] | null => {
    if (state.get(folder) === 'done') return null;
    if (state.get(folder) === 'open') return [...path.slice(path.indexOf(folder)), folder];
    state.set(folder, 'open');
    path.push(folder);
    for (const next of [...(edges.get(folder)?.keys() ?? [])].sort()) {
      const loop = visit(next);
      if (loop) return loop;
    }
    path.pop();
    state.set(folder, 'done');
    return null;
  };
  for (const folder of [...edges.keys()].sort()) {
    const loop = visit(folder);
    if (loop) return loop;
  }
  return null;
}

describe('graph service layering', () => {
  const edges = folderEdges();

  test('the scan sees the folders and their imports (so the checks below are not vacuous)', () => {
    expect(edges.get('tasks')?.has('graph')).toBe(true);
    expect(edges.get('graph')?.has('crawl')).toBe(true);
    expect(edges.get('graph')?.has('providers')).toBe(true);
    expect(relativeImports("import type {\n  A,\n  B,\n} from '../x/y';\nexport { C } from './z';")).toEqual([
      '../x/y',
      './z',
    ]);
  });

  test('no two folders import each other', () => {
    const ties: string[] = [];
    for (const [from, tos] of edges) {
      for (const [to, example] of tos) {
        const back = edges.get(to)?.get(from);
        if (back && from < to) ties.push(`${from} ↔ ${to}: ${example}; ${back}`);
      }
    }
    expect(ties).toEqual([]);
  });

  test('no loop of folders through a third: the folders form layers', () => {
    const loop = folderLoop(edges);
    const described = loop?.slice(1).map((to, i) => `${loop[i]} → ${to} (${edges.get(loop[i]!)!.get(to)})`);
    expect(described ?? []).toEqual([]);
  });

  test('Owner is defined once, by @platform/db, not again in this service', () => {
    const redefined = sourceFiles(SRC)
      .filter((file) => /^\s*(?:export\s+)?(?:interface\s+Owner\b|type\s+Owner\s*=)/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(redefined).toEqual([]);
  });
});
