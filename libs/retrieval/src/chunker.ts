/** A chunk of a text and where it is in that text: `text === original.slice(start, end)`. */
export interface TextChunk {
  text: string;
  /** Offset of the chunk's first character in the original text (UTF-16 code units, like `String.prototype.slice`). */
  start: number;
  /** Offset just past the chunk's last character in the original text. */
  end: number;
}

/**
 * Splits text into chunks of at most `size` characters, consecutive chunks sharing about `overlap` characters, each
 * with its offsets in `text`. Whitespace around the text and around each chunk is left out of the chunk, so
 * `text.slice(chunk.start, chunk.end) === chunk.text` for every chunk.
 */
export function chunkTextWithOffsets(text: string, size: number, overlap: number): TextChunk[] {
  const clean = text.trim();
  if (clean.length === 0) return [];
  const lead = text.length - text.trimStart().length;
  const at = (from: number, to: number): TextChunk | null => {
    const raw = clean.slice(from, to);
    const piece = raw.trim();
    if (!piece) return null;
    const start = lead + from + (raw.length - raw.trimStart().length);
    return { text: piece, start, end: start + piece.length };
  };
  if (clean.length <= size) return [at(0, clean.length)!];
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const chunks: TextChunk[] = [];
  let start = 0;
  while (start < clean.length) {
    let end = Math.min(clean.length, start + size);
    if (end < clean.length) {
      // End on a sentence or line break when one is in the last third of the window, else on a space.
      const window = clean.slice(start, end);
      const floor = Math.floor(size * 0.66);
      const sentence = Math.max(
        window.lastIndexOf('. '),
        window.lastIndexOf('\n'),
        window.lastIndexOf('? '),
        window.lastIndexOf('! '),
      );
      const space = window.lastIndexOf(' ');
      if (sentence >= floor) end = start + sentence + 1;
      else if (space >= floor) end = start + space;
    }
    const piece = at(start, end);
    if (piece) chunks.push(piece);
    if (end >= clean.length) break;
    // The next chunk starts `overlap` characters before this one ended, moved to a word start.
    let next = Math.max(start + 1, end - (size - step));
    const space = clean.indexOf(' ', next);
    if (space !== -1 && space < end) next = space + 1;
    start = next;
  }
  return chunks;
}

/** Splits text into chunks of at most `size` characters, consecutive chunks sharing about `overlap` characters. */
export function chunkText(text: string, size: number, overlap: number): string[] {
  return chunkTextWithOffsets(text, size, overlap).map((c) => c.text);
}
