/**
 * Reading order of a page's text items by recursive XY-cut: a region is split at every vertical gutter (columns,
 * read left to right) and, where there is none, at every horizontal gap wider than line spacing (blocks, read top to
 * bottom); what cannot be split is read line by line. So a two-column page reads column after column even when its
 * producer drew the lines row by row, and a full-width title stays above the columns it spans.
 */

/** A text run placed on the page, in viewport space (y grows downwards). */
export interface TextBox {
  str: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** Font size in viewport units. */
  size: number;
}

/** Deeper than this the region is read line by line: pathological pages cannot exhaust the stack. */
const MAX_DEPTH = 40;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Positions at which the projection of `boxes` on one axis has an empty band at least `minGap` wide. */
function cuts(boxes: TextBox[], axis: 'x' | 'y', minGap: number): number[] {
  const spans = boxes
    .map((b): [number, number] => (axis === 'x' ? [b.x0, b.x1] : [b.y0, b.y1]))
    .sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  let end = spans[0]?.[1] ?? 0;
  for (const [start, stop] of spans.slice(1)) {
    if (start - end >= minGap) out.push((start + end) / 2);
    end = Math.max(end, stop);
  }
  return out;
}

function split(boxes: TextBox[], axis: 'x' | 'y', at: number[]): TextBox[][] {
  const parts: TextBox[][] = at.map(() => []);
  parts.push([]);
  for (const b of boxes) {
    const c = axis === 'x' ? b.x0 : b.y0;
    let i = 0;
    while (i < at.length && c > at[i]!) i++;
    parts[i]!.push(b);
  }
  return parts.filter((p) => p.length > 0);
}

/** Boxes grouped into lines (top to bottom), each line's boxes left to right. */
function lines(boxes: TextBox[]): TextBox[][] {
  const sorted = [...boxes].sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const out: { cy: number; h: number; boxes: TextBox[] }[] = [];
  for (const b of sorted) {
    const cy = (b.y0 + b.y1) / 2;
    const h = b.y1 - b.y0;
    const line = out[out.length - 1];
    if (line && Math.abs(cy - line.cy) < 0.5 * Math.min(h, line.h)) line.boxes.push(b);
    else out.push({ cy, h, boxes: [b] });
  }
  return out.map((l) => l.boxes.sort((a, b) => a.x0 - b.x0));
}

function xyCut(boxes: TextBox[], size: number, depth: number): TextBox[][] {
  if (boxes.length < 2 || depth > MAX_DEPTH) return lines(boxes);
  // A single line is never split into columns: wide gaps within one line are tab stops, not gutters.
  const top = boxes.reduce((m, b) => Math.min(m, b.y0), Infinity);
  const bottom = boxes.reduce((m, b) => Math.max(m, b.y1), -Infinity);
  const tall = bottom - top > 1.8 * size;
  const columns = tall ? cuts(boxes, 'x', size) : [];
  if (columns.length > 0) return split(boxes, 'x', columns).flatMap((part) => xyCut(part, size, depth + 1));
  const blocks = cuts(boxes, 'y', 0.6 * size);
  if (blocks.length > 0) return split(boxes, 'y', blocks).flatMap((part) => xyCut(part, size, depth + 1));
  return lines(boxes);
}

/** Joins a line's runs, with a space where the gap between two runs is wider than a narrow space. */
function joinLine(line: TextBox[]): string {
  let text = '';
  let prev: TextBox | undefined;
  for (const b of line) {
    if (prev && b.x0 - prev.x1 > 0.15 * Math.min(prev.size, b.size) && !/\s$/.test(text) && !/^\s/.test(b.str))
      text += ' ';
    text += b.str;
    prev = b;
  }
  return text.trim();
}

/** The page's text in reading order, one line per row of text. */
export function readingOrder(boxes: TextBox[]): string {
  const visible = boxes.filter((b) => b.str.trim().length > 0);
  if (visible.length === 0) return '';
  const size = Math.max(1, median(visible.map((b) => b.size)));
  return xyCut(visible, size, 0)
    .map(joinLine)
    .filter((l) => l.length > 0)
    .join('\n');
}
