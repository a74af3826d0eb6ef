/**
 * Mild expletives: swearing that expresses the speaker's mood ("holy shit", "damn it", "what the hell") rather than
 * abuse of anyone. The toxicity model never sees them (they are cut from its input when training and when scoring):
 * OLID, one of its training sets, counts any profanity as offensive, while this service's definition (and
 * HateCheck's) does not, so the model judges the rest of the text and the rules judge the swearing itself: aimed at
 * the reader ("fuck you", "you piece of shit") it violates, on its own it stays below the default threshold.
 * Abusive words (slurs, sexual insults) are not in this list: the model keeps seeing them.
 */
export const MILD_EXPLETIVE =
  /\b(?:(?:holy\s+)?shit(?:s|ty|tiest)?|bull\s?shit|damn(?:ed|it|n)?|god\s?damn(?:ed|it)?|hell|crap(?:py|s)?|fuck(?:ing|in|ed|s|er)?|f[*#@]+(?:c?k|ck)(?:ing|in)?|frick(?:ing|in)?|freaking|frigging|wtf|omfg|ffs|bloody)\b/gi;

/** Whether a matched word (as it appears in the text) is a mild expletive. */
const WHOLE = new RegExp(`^(?:${MILD_EXPLETIVE.source})$`, 'i');
export const isMildExpletive = (word: string): boolean => WHOLE.test(word);

/**
 * Violent words used as figures of speech about things, not people ("this bug is killing me", "you killed it on
 * stage", "I'm dying to see it", "I could murder a pizza"): cut like the mild expletives, so the model's weight on
 * "kill" (learnt from real threats) does not fire on them. Threats keep their object ("kill you", "kill them all").
 */
export const VIOLENT_IDIOM =
  /\b(?:(?:is|are|was|were|'s|'re|it's|that's)\s+killing\s+me|kill(?:ed|ing|s)?\s+it|(?:i'm|im|i\s+am|we're)\s+dying\s+(?:to|for|of)|(?:could|would)\s+(?:kill|murder)\s+(?:for\s+)?(?:a|an|some)\s+\w+)\b/gi;

/** The text the model sees: mild expletives and violent idioms removed, whitespace kept single. */
export const modelInput = (text: string): string =>
  text
    .replace(MILD_EXPLETIVE, ' ')
    .replace(VIOLENT_IDIOM, ' ')
    .replace(/\s{2,}/g, ' ');
