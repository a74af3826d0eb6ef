import { gzipSync } from 'node:zlib';

import type { IndexState, Postings } from './lexical-state';
import { compact, indexPages } from './lexical-upkeep';

/**
 * The binary form of an index (before gzip): the number of sections (one byte), their lengths (uint32 each), then
 * the sections: a JSON header, four int32 arrays per slot (page, ordinal, text length, title length), the postings'
 * slot gaps as varints, their tf pairs, each slot's vector length and the vectors (float32).
 */
const FORMAT = 1;

/** What the binary form holds besides the postings. */
interface Header {
  format: number;
  ids: string[];
  pages: string[];
  titles: string[];
  terms: string[];
  termOrder: number[];
}

/** The binary form (gzip), which `readInto` reads back. Compacts first. */
export function serialize(st: IndexState): Buffer {
  compact(st);
  const { ids, pages, titles, terms, postings, sorted, termIndex, vectorOf, pageOf, ordinals, lenText, lenTitle } = st;
  const termOrder = sorted.map((t) => termIndex.get(t)!);
  const header: Header = { format: FORMAT, ids: ids as string[], pages, titles, terms, termOrder };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const count = ids.length;
  const { gaps, tfs } = writePostings(postings);
  const { dims, vecs } = writeVectors(vectorOf, count);
  const sections = [
    headerBytes,
    Buffer.from(pageOf.buffer, pageOf.byteOffset, count * 4),
    Buffer.from(ordinals.buffer, ordinals.byteOffset, count * 4),
    Buffer.from(lenText.buffer, lenText.byteOffset, count * 4),
    Buffer.from(lenTitle.buffer, lenTitle.byteOffset, count * 4),
    gaps,
    Buffer.from(tfs.buffer, tfs.byteOffset, tfs.length),
    Buffer.from(dims.buffer, dims.byteOffset, dims.byteLength),
    Buffer.from(vecs.buffer, vecs.byteOffset, vecs.byteLength),
  ];
  const lengths = Buffer.alloc(4 * sections.length);
  sections.forEach((s, i) => lengths.writeUInt32LE(s.length, 4 * i));
  return gzipSync(Buffer.concat([Buffer.from([sections.length]), lengths, ...sections]), { level: 1 });
}

/** Postings: per term its count, then slot gaps as varints, then its tf pairs. */
function writePostings(postings: Postings[]): { gaps: Buffer; tfs: Uint8Array } {
  let total = 0;
  for (const p of postings) total += p.n;
  const gaps = Buffer.alloc(total * 5 + postings.length * 5);
  let g = 0;
  const varint = (x: number) => {
    while (x >= 0x80) {
      gaps[g++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    gaps[g++] = x;
  };
  const tfs = new Uint8Array(total * 2);
  let f = 0;
  for (const p of postings) {
    varint(p.n);
    let prev = 0;
    for (let i = 0; i < p.n; i++) {
      varint(p.slots[i]! - prev);
      prev = p.slots[i]!;
    }
    tfs.set(p.tf.subarray(0, 2 * p.n), f);
    f += 2 * p.n;
  }
  return { gaps: gaps.subarray(0, g), tfs };
}

/** Each slot's vector length (0 without one), and the vectors end to end. */
function writeVectors(vectorOf: (Float32Array | null)[], count: number): { dims: Int32Array; vecs: Float32Array } {
  const dims = new Int32Array(count);
  let vecTotal = 0;
  for (let s = 0; s < count; s++) {
    dims[s] = vectorOf[s]?.length ?? 0;
    vecTotal += dims[s]!;
  }
  const vecs = new Float32Array(vecTotal);
  let o = 0;
  for (let s = 0; s < count; s++) {
    const v = vectorOf[s];
    if (v) vecs.set(v, o);
    o += dims[s]!;
  }
  return { dims, vecs };
}

const int32 = (b: Buffer) => {
  const copy = new Int32Array(b.length / 4);
  new Uint8Array(copy.buffer).set(b);
  return copy;
};

/** Fills an empty index with the (gunzipped) form `serialize` wrote. Throws on anything else. */
export function readInto(st: IndexState, raw: Buffer): void {
  const nSections = raw[0]!;
  const sections: Buffer[] = [];
  let at = 1 + 4 * nSections;
  for (let i = 0; i < nSections; i++) {
    const len = raw.readUInt32LE(1 + 4 * i);
    sections.push(raw.subarray(at, at + len));
    at += len;
  }
  const header = JSON.parse(sections[0]!.toString('utf8')) as Header;
  if (header.format !== FORMAT) throw new Error(`unknown index format ${String(header.format)}`);
  st.ids = header.ids;
  const count = st.ids.length;
  st.pageOf = int32(sections[1]!);
  st.ordinals = int32(sections[2]!);
  st.lenText = int32(sections[3]!);
  st.lenTitle = int32(sections[4]!);
  st.pages = header.pages;
  st.titles = header.titles;
  indexPages(st);
  for (let s = 0; s < count; s++) {
    st.slotOf.set(st.ids[s]!, s);
    st.pageSlots[st.pageOf[s]!]!.add(s);
    st.totalText += st.lenText[s]!;
    st.totalTitle += st.lenTitle[s]!;
  }
  st.live = count;
  st.terms = header.terms;
  st.termIndex = new Map(st.terms.map((t, i) => [t, i]));
  st.sorted = header.termOrder.map((i) => st.terms[i]!);
  st.postings = readPostings(st.terms, sections[5]!, new Uint8Array(sections[6]!));
  readVectors(st, int32(sections[7]!), sections[8]!);
}

function readPostings(terms: string[], gaps: Buffer, tfs: Uint8Array): Postings[] {
  let g = 0;
  const readVarint = () => {
    let x = 0;
    let shift = 0;
    for (;;) {
      const b = gaps[g++]!;
      x += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return x;
      shift += 7;
    }
  };
  let f = 0;
  return terms.map(() => {
    const n = readVarint();
    const slots = new Int32Array(n);
    let prev = 0;
    for (let i = 0; i < n; i++) slots[i] = prev += readVarint();
    const tf = tfs.slice(f, f + 2 * n);
    f += 2 * n;
    return { slots, tf, n };
  });
}

function readVectors(st: IndexState, dims: Int32Array, vecBytes: Buffer): void {
  const all = new Float32Array(vecBytes.length / 4);
  new Uint8Array(all.buffer).set(vecBytes);
  let o = 0;
  st.vectorOf = Array.from(dims, (d) => {
    if (d === 0) return null;
    const v = all.subarray(o, o + d);
    o += d;
    st.vectors++;
    return v;
  });
}
