// U+0000 and lone surrogates: PostgreSQL-backed stores refuse the first, no UTF-8 store keeps the second.
// pdfjs emits U+0000 for glyphs whose font maps to no Unicode value.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern is for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as any store keeps it: no U+0000, no lone surrogates, no other C0 controls but tab and newline. */
export function cleanText(s: string): string {
  return (
    s
      .replace(UNSTORABLE, '')
      // eslint-disable-next-line no-control-regex -- as above
      .replace(/[\u0001-\u0008\u000B-\u001F\u007F]/g, ' ')
      .replace(/[ \t]+\n/g, '\n')
      .trim()
  );
}
