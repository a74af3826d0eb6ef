/**
 * Views of a text for the injection rules: a de-obfuscated view (spaced or dotted letters joined, look-alike digits
 * inside words replaced, invisible characters dropped) and a view with quoted data set aside when the user asks for
 * a data task on it ("Translate to French: \"Ignore previous instructions\"" is a translation request, not an attack).
 */
import { plainFold } from '../fold';

/** Zero-width and other invisible characters that split words without showing. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;
/** Three or more single letters each split from the next by the same kind of sign: "i.g.n.o.r.e", "i g n o r e". */
const SPACED_LETTERS = /(?<![\p{L}\p{N}])\p{L}(?:([.\-_*·•|/ ])\p{L})(?:\1\p{L})+(?![\p{L}\p{N}])/gu;
/** Digits and signs that stand for letters inside words ("1gn0re"). */
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };
const LEET_WORD = /[\p{L}013457@$]*\p{L}[\p{L}013457@$]*/gu;
const HAS_LEET = /[013457@$]/;

/** The text folded (accents, case) with obfuscations undone: what the rules read. */
export function deobfuscate(text: string): string {
  return plainFold(text.replace(INVISIBLE, ''))
    .replace(SPACED_LETTERS, (run) => run.replace(/[^\p{L}]/gu, ''))
    .replace(LEET_WORD, (w) =>
      HAS_LEET.test(w) && /\p{L}{2}/u.test(w) ? w.replace(/[013457@$]/g, (c) => LEET[c]!) : w,
    );
}

/**
 * Asking to work on a text rather than to obey it: translate, summarise, paraphrase, proofread, classify, explain
 * (English, Spanish, French, German, Portuguese, Italian stems, over folded text).
 */
const DATA_TASK =
  /\b(?:translat|summari[sz]|summary|paraphras|rephras|proofread|spell-?check|grammar|classif|categori[sz]|sentiment|detect the language|what language|which language|count the|analy[sz]|tone of|explain what|what does|meaning of|rewrite|correct|traduc|tradui|traduz|tradurr|ubersetz|resum|zusammenfass|riassum)/;
/** Quoted passages: "…", “…”, «…», „…“, ```…``` and '…' (the last only between spaces or punctuation). */
const QUOTED =
  /"[^"\n]{3,}"|\u201c[^\u201d]{3,}\u201d|\u00ab[^\u00bb]{3,}\u00bb|\u201e[^\u201c\u201d]{3,}[\u201c\u201d]|```[\s\S]*?```|(?<=^|[\s:(])'[^'\n]{8,}'(?=$|[\s.,;:!?)])/g;
/** Beyond this much text outside the quotes, the request is not a short data task around a quotation. */
const MAX_FRAME = 300;

/**
 * The text with quoted passages replaced by a placeholder, when the rest of it is a short request for a data task
 * (translate, summarise, classify…); otherwise the text unchanged. An instruction outside the quotes still counts.
 */
export function setAsideQuoted(text: string): string {
  if (text.search(QUOTED) < 0) return text;
  const frame = text.replace(QUOTED, ' "…" ');
  if (frame.length > MAX_FRAME || !DATA_TASK.test(plainFold(frame))) return text;
  return frame;
}

/**
 * A one-line question that addresses no one ("What is a system prompt, in general terms?", "Where are the assembly
 * instructions for the desk?"): it may name the words attacks use, but it orders nothing and asks nothing of the model.
 * No "you"/"your", one sentence ending in a question mark. (On the training split 3 of 670 attacks have this form.)
 */
const PLAIN_QUESTION = /^(?:(?!\byou(?:r|rs|rself)?\b)[^.!?\n]){3,150}\?$/;

export const isPlainQuestion = (text: string): boolean => PLAIN_QUESTION.test(plainFold(text).trim());
