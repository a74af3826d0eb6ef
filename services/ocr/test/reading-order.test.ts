/** The XY-cut reading order on hand-placed boxes (viewport space: y grows downwards). */
import { readingOrder, type TextBox } from '../src/extraction/worker/reading-order';

/** A run of `str` at (x, baseline y) in an 10-unit font, 5 units per character wide. */
const run = (str: string, x: number, y: number, size = 10): TextBox => ({
  str,
  x0: x,
  x1: x + str.length * size * 0.5,
  y0: y - 0.8 * size,
  y1: y + 0.2 * size,
  size,
});

it('reads one column line by line, runs of a line left to right with a space where there is a gap', () => {
  expect(readingOrder([run('world', 38, 20), run('Hello', 10, 20), run('Second', 10, 34)])).toBe('Hello world\nSecond');
  expect(readingOrder([run('Total:', 10, 20), run('42', 200, 20)])).toBe('Total: 42');
});

it('joins runs that touch without a space (CJK glyphs, split words)', () => {
  expect(readingOrder([run('我能', 10, 20), run('吞下', 20, 20)])).toBe('我能吞下');
});

it('reads columns one after the other whatever order the runs come in, under a full-width title', () => {
  const boxes = [run('A title that spans both columns of the page', 10, 10, 14)];
  for (let i = 0; i < 4; i++) boxes.push(run(`right ${i}`, 300, 40 + i * 12), run(`left ${i}`, 10, 40 + i * 12));
  expect(readingOrder(boxes).split('\n')).toEqual([
    'A title that spans both columns of the page',
    ...[0, 1, 2, 3].map((i) => `left ${i}`),
    ...[0, 1, 2, 3].map((i) => `right ${i}`),
  ]);
});

it('keeps paragraphs of one column in order across blank space', () => {
  expect(readingOrder([run('third', 10, 100), run('first', 10, 10), run('second', 10, 22)])).toBe(
    'first\nsecond\nthird',
  );
});

it('ignores whitespace-only runs and answers "" for a page without text', () => {
  expect(readingOrder([run('   ', 10, 10)])).toBe('');
  expect(readingOrder([])).toBe('');
});

it('survives thousands of runs without deep recursion', () => {
  const boxes = Array.from({ length: 5000 }, (_, i) => run(`w${i}`, (i % 50) * 40, Math.floor(i / 50) * 30));
  const lines = readingOrder(boxes).split('\n');
  expect(lines).toHaveLength(5000);
  expect(lines[0]).toBe('w0');
});
