import { chunkText, chunkTextWithOffsets } from '@platform/retrieval';

describe('chunkText', () => {
  const text = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} talks about lanterns.`).join(' ');

  it('keeps every chunk within chunk_size, overlapping the previous one, and covers the whole text', () => {
    const chunks = chunkText(text, 300, 60);
    expect(chunks.length).toBeGreaterThan(text.length / 300);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(300);
    for (let i = 1; i < chunks.length; i++) {
      const tail = chunks[i - 1]!.slice(-20);
      expect(chunks[i]!.slice(0, 80)).toContain(tail.slice(tail.indexOf(' ') + 1, tail.indexOf(' ') + 8));
    }
    expect(chunks[0]!.startsWith('Sentence number 0')).toBe(true);
    expect(chunks[chunks.length - 1]!.endsWith('Sentence number 199 talks about lanterns.')).toBe(true);
  });

  it('ends chunks on sentence boundaries when it can; short text is one chunk; empty text none', () => {
    expect(
      chunkText(text, 300, 0)
        .slice(0, -1)
        .every((c) => c.endsWith('.')),
    ).toBe(true);
    expect(chunkText('  One short text.  ', 300, 50)).toEqual(['One short text.']);
    expect(chunkText('   ', 300, 50)).toEqual([]);
  });
});

describe('chunkTextWithOffsets', () => {
  const text = Array.from({ length: 120 }, (_, i) => `Line ${i} is about the harbour.\n`).join('');
  const padded = `  \n\t${text}   \n`;

  it('gives each chunk its offsets in the original text: text.slice(start, end) is the chunk', () => {
    for (const [size, overlap] of [
      [200, 40],
      [97, 0],
      [50, 49],
      [1000, 100],
    ] as const) {
      const chunks = chunkTextWithOffsets(padded, size, overlap);
      expect(chunks.length).toBeGreaterThan(0);
      for (const c of chunks) {
        expect(padded.slice(c.start, c.end)).toBe(c.text);
        expect(c.text).toBe(c.text.trim());
        expect(c.end - c.start).toBeLessThanOrEqual(size);
      }
      // In order, overlapping by at most `overlap`, and covering the text from its first to its last character.
      for (let i = 1; i < chunks.length; i++) {
        expect(chunks[i]!.start).toBeGreaterThan(chunks[i - 1]!.start);
        expect(chunks[i - 1]!.end - chunks[i]!.start).toBeLessThanOrEqual(overlap);
      }
      expect(chunks[0]!.start).toBe(padded.indexOf('Line 0'));
      expect(chunks[chunks.length - 1]!.end).toBe(padded.trimEnd().length);
    }
  });

  it('chunkText is the text of chunkTextWithOffsets', () => {
    expect(chunkText(padded, 150, 30)).toEqual(chunkTextWithOffsets(padded, 150, 30).map((c) => c.text));
  });

  it('a short text is one chunk at its offsets; blank text has none', () => {
    expect(chunkTextWithOffsets('\n  Hello there.  ', 300, 20)).toEqual([{ text: 'Hello there.', start: 3, end: 15 }]);
    expect(chunkTextWithOffsets(' \n\t ', 300, 20)).toEqual([]);
  });
});
