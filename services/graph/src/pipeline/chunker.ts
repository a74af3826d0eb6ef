/** Splits text into chunks of at most `size` characters, consecutive chunks sharing about `overlap` characters. */
export function chunkText(text: string, size: number, overlap: number): string[] {
  const clean = text.trim();
  if (clean.length === 0) return [];
  if (clean.length <= size) return [clean];
  const step = Math.max(1, size - Math.min(overlap, size - 1));
  const chunks: string[] = [];
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
    const piece = clean.slice(start, end).trim();
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
