// What the question-answering pipeline needs of a question from the part-of-speech tagger (compromise): its named
// entities, whether it asks for a fact or an account, and its nouns. The tagger holds about 35 MB once loaded, so the
// service computes this in its worker thread (reader-task.ts, where the reader has it loaded anyway), and the event
// loop's thread never loads it.
import nlp from 'compromise';
import { type AnswerType, answerType } from './answer-type.js';
import { termsOf } from './extractive.js';
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

export function extractEntities(question: string): Entities {
  const doc = nlp(question);
  const clean = (xs: string[]) => [...new Set(xs.map((x) => x.replace(/[,.;:!?'"]+$/g, '').trim()).filter(Boolean))];
  const years = question.match(/\b(1[5-9]\d\d|20\d\d)\b/g) ?? [];
  const months = question.match(/\b(January|February|March|April|May|June|July|August|September|October|November|December)(\s+\d{1,2})?(,?\s+\d{4})?/g) ?? [];
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
  const nouns = terms
    .filter((t, i) => (t.tags.has('Noun') && !t.tags.has('Verb') && !t.tags.has('Pronoun')) || compound(i))
    .map((t) =>
      t.text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}'’.-]/gu, '')
        .replace(/['’]s$/, ''),
    );
  return [...new Set(nouns)];
}
