import type { Finding } from './check.types';
import { foldTerm, plainFold } from './fold';
import { escapeRegExp } from './terms';
import { TOPIC_TERMS } from './topic-lexicon';

/** A topic's own words, each also in the plural, when the lexicon does not know it. */
const ownTerms = (topic: string) =>
  topic
    .split(' ')
    .filter((w) => w.length >= 3)
    .flatMap((w) => [w, `${w}s`, `${w}es`]);

/** The pattern of a topic: whole words of its lexicon entry (stems with `*`) or of its own name. */
function topicPattern(topic: string): RegExp | null {
  const name = foldTerm(topic);
  if (!name) return null;
  const terms = [name, ...(TOPIC_TERMS[name] ?? ownTerms(name))];
  const alternatives = terms.map((t) =>
    (t.endsWith('*') ? `${escapeRegExp(t.slice(0, -1))}\\p{L}*` : escapeRegExp(t)).replace(/ /g, '\\s+'),
  );
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'u');
}

const mentions = (folded: string, topic: string) => topicPattern(topic)?.test(folded) ?? false;

/** Banned topics mentioned in the text: each one blocks. */
export function bannedTopicFindings(text: string, topics: string[]): Finding[] {
  const folded = plainFold(text);
  return topics
    .filter((t) => mentions(folded, t))
    .map((t) => ({ check: 'banned_topics', action: 'block', detail: `banned topic "${t}" found` }));
}

/** With allowed topics set, a text that mentions none of them is off-topic and blocks; an empty text is not. */
export function allowedTopicFindings(text: string, topics: string[]): Finding[] {
  if (topics.length === 0 || text.trim() === '') return [];
  const folded = plainFold(text);
  if (topics.some((t) => mentions(folded, t))) return [];
  return [
    {
      check: 'allowed_topics',
      action: 'block',
      detail: `text is about none of the allowed topics (${topics.join(', ')})`,
    },
  ];
}
