// What the question-answering pipeline needs of a question from the part-of-speech tagger (compromise): its named
// entities, whether it asks for a fact or an account, and its nouns. The tagger holds about 35 MB once loaded, so the
// service computes this in its worker thread (reader-task.ts, where the reader has it loaded anyway), and the event
// loop's thread never loads it.
import nlp from 'compromise';
import { type AnswerType, answerType } from './answer-type.js';
import { type Term, termsOf } from './extractive.js';
import { MODERN_YEARS, MONTH_NAMES } from './lexical.js';
import type { Entities } from './rewrite.js';

export interface QuestionNlp {
  entities: Entities;
  answerType: AnswerType;
  /** The question's nouns, lower case, without a possessive 's (the support check weighs them). */
  nouns: string[];
}

export function questionNlp(question: string): QuestionNlp {
  return { entities: extractEntities(question), answerType: answerType(question), nouns: questionNouns(question) };
}

/** A month, with its day and year when they follow ("March 4", "July 4, 1776"). */
const MONTH_DATE = new RegExp(`\\b(${MONTH_NAMES.join('|')})(\\s+\\d{1,2})?(,?\\s+\\d{4})?`, 'g');

const PAIRS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const count = (text: string, char: string) => text.split(char).length - 1;

/**
 * An entity without the punctuation the tagger leaves on it: trailing ",.;:!?'\"", brackets around it ("[Acme Corp]"),
 * and a bracket of the question's that the entity does not close or open ("931)" of "(rfc 931)", "(500" of "(500 MB)").
 * A balanced one inside stays ("f(x)").
 */
export function trimEntity(entity: string): string {
  let text = entity.trim();
  for (let before = ''; before !== text;) {
    before = text;
    text = text.replace(/[,.;:!?'"]+$/g, '').trim();
    const [first, last] = [text[0] ?? '', text.at(-1) ?? ''];
    if (PAIRS[first] && PAIRS[first] === last) text = text.slice(1, -1).trim();
    else if (PAIRS[first] && count(text, first) > count(text, PAIRS[first])) text = text.slice(1).trim();
    else {
      const opener = Object.keys(PAIRS).find((o) => PAIRS[o] === last);
      if (opener && count(text, last) > count(text, opener)) text = text.slice(0, -1).trim();
    }
  }
  return text;
}

export function extractEntities(question: string): Entities {
  const doc = nlp(question);
  const clean = (xs: string[]) => [...new Set(xs.map(trimEntity).filter(Boolean))];
  const years = question.match(MODERN_YEARS) ?? [];
  const months = question.match(MONTH_DATE) ?? [];
  return {
    people: clean(doc.people().out('array') as string[]),
    places: clean(doc.places().out('array') as string[]),
    organizations: clean(doc.organizations().out('array') as string[]),
    dates: clean([...months, ...years]),
    numbers: clean((doc.numbers().out('array') as string[]).filter((n) => !(years as string[]).includes(n))),
  };
}

export function questionNouns(question: string): string[] {
  const terms = termsOf(question);
  // A participle that makes a compound noun with the noun after it ("boiling point", "melting point") is part of
  // what is asked about: "the boiling point of water" is not answered by a passage about some other point.
  const compound = (i: number) => terms[i]!.tags.has('Adjective') && /ing$/i.test(terms[i]!.text) && !!terms[i + 1]?.tags.has('Noun');
  const mainVerb = doSupportVerb(terms);
  const nouns = terms
    .filter((t, i) => i !== mainVerb && ((t.tags.has('Noun') && !t.tags.has('Verb') && !t.tags.has('Pronoun')) || compound(i)))
    .map((t) =>
      t.text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}'’.-]/gu, '')
        .replace(/['’]s$/, ''),
    );
  return [...new Set(nouns)];
}

const DETERMINERS = new Set(['the', 'a', 'an', 'this', 'that', 'these', 'those']);

/**
 * In "What did Pope Leo X launch against Luther?" or "Who did Luther view as the Antichrist?", the word after the
 * named subject of "did/does/do" is the question's main verb, which the tagger often reads as a noun ("launch",
 * "view", "invade"): its position, when it is lower case and ends the question or comes before a preposition, a
 * determiner or "to"; otherwise -1. A subject typed in lower case, as names of programs often are ("which versions
 * does mosquitto support?", "how many threads does piscina start?"), is one word, or up to three when the verb ends
 * the question.
 */
export function doSupportVerb(terms: Pick<Term, 'text' | 'tags'>[]): number {
  const at = terms.findIndex((t) => /^(did|does|do)$/i.test(t.text));
  if (at < 0) return -1;
  let i = at + 1;
  if (DETERMINERS.has(terms[i]?.text.toLowerCase() ?? '')) i++;
  const subjectStart = i;
  while (i < terms.length && /^\p{Lu}/u.test(terms[i]!.text)) i++;
  if (i === subjectStart) i = lowerCaseSubjectEnd(terms, subjectStart);
  const verb = terms[i];
  if (i === subjectStart || !verb || !/^\p{Ll}+$/u.test(verb.text) || !verb.tags.has('Noun')) return -1;
  const next = terms[i + 1];
  const endsOrLinks = !next || next.tags.has('Preposition') || next.tags.has('Determiner') || /^(to|as|about|on|in|at|with|for|against|into)$/i.test(next.text);
  return endsOrLinks ? i : -1;
}

/** Where a lower-case subject starting at `start` ends: after one word, or before the question's last word. */
function lowerCaseSubjectEnd(terms: Pick<Term, 'text' | 'tags'>[], start: number): number {
  const last = terms.length - 1;
  if (last - start >= 1 && last - start <= 3) return last;
  return start + 1;
}
