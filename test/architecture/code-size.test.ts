/**
 * Code a reader can hold: no source file of a lib or a service over MAX_FILE_LINES lines (generated files aside: their
 * first line says so, or their name says `generated`), and no function over MAX_FUNCTION_LINES lines, a factory's
 * closure included. Functions are found with the TypeScript parser, so arrow functions and methods count too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const packages = ['libs', 'services'].flatMap((top) =>
  readdirSync(join(ROOT, top))
    .map((name) => join(ROOT, top, name, 'src'))
    .filter((src) => statSync(src, { throwIfNoEntry: false })?.isDirectory()),
);

const sources = packages
  .flatMap(sourcesUnder)
  .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }))
  .filter(({ path, text }) => !/generated/i.test(path) && !text.startsWith('// Generated'));

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** `path:line (n lines)` of every function of `text` longer than `max` lines. */
function longFunctions(path: string, text: string, max: number): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > max) out.push(`${path}:${first + 1} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

test('the sources of every lib and service are read', () => {
  expect(sources.length).toBeGreaterThan(300);
  expect(sources.map((s) => s.path)).toContain('libs/http/src/route-table.ts');
});

test(`no source file over ${MAX_FILE_LINES} lines (generated ones aside)`, () => {
  const long = sources
    .filter(({ text }) => lineCount(text) > MAX_FILE_LINES)
    .map((s) => `${s.path} (${lineCount(s.text)})`);
  expect(long).toEqual([]);
});

test(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
  expect(sources.flatMap(({ path, text }) => longFunctions(path, text, MAX_FUNCTION_LINES))).toEqual([]);
});

test('the function measure counts arrow functions, methods and closures', () => {
  const body = Array.from({ length: 5 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = `export function outer() {\n  const inner = () => {\n${body}\n  };\n  return { m() {\n${body}\n  } };\n}\n`;
  expect(longFunctions('x.ts', text, 4)).toEqual(['x.ts:1 (16 lines)', 'x.ts:2 (7 lines)', 'x.ts:9 (7 lines)']);
});
