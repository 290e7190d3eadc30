// The answer without an LLM: the best sentence of the retrieved chunks, and in it the short span that fits the
// question's type (who -> a person, when -> a date, how many -> a number, where -> a place, else a noun phrase).
import nlp from 'compromise';
import { bm25Tokens } from '../../search/bm25.js';
import type { SearchHit } from '../service.js';
import { sentencesOf } from './guardrails.js';

export type QuestionType = 'person' | 'date' | 'number' | 'place' | 'other';

export function questionType(question: string): QuestionType {
  const q = question.toLowerCase();
  if (/\b(how (many|much|long|far|old|large|big)|what (percentage|percent|number|amount)|how much)\b/.test(q)) return 'number';
  if (/\b(when|what year|which year|what date|what century|what decade)\b/.test(q)) return 'date';
  if (/\b(who|whom|whose)\b/.test(q)) return 'person';
  if (/\b(where|what (country|city|state|place|region))\b/.test(q)) return 'place';
  return 'other';
}

export interface Extracted {
  answer: string;
  passage: string;
  source: string;
  chunk_index: number;
}

const stems = (s: string) => new Set(bm25Tokens(s));

function candidates(sentence: string, type: QuestionType): string[] {
  const doc = nlp(sentence);
  const arr = (x: { out(f: 'array'): unknown }) => x.out('array') as string[];
  const years = sentence.match(/\b(1[5-9]\d\d|20\d\d)s?\b/g) ?? [];
  const dates = sentence.match(/\b(January|February|March|April|May|June|July|August|September|October|November|December)(\s+\d{1,2})?(,?\s+\d{4})?\b/g) ?? [];
  const numbers = sentence.match(/\$?\d[\d,.]*(\s?(%|percent|million|billion|thousand|hundred|years?|days?|months?|miles?|km|people|men|soldiers|dollars))?/gi) ?? [];
  const typed: Record<QuestionType, string[]> = {
    person: [...arr(doc.people()), ...arr(doc.organizations())],
    date: [...dates, ...years],
    number: [...numbers, ...arr(doc.numbers())],
    place: [...arr(doc.places())],
    other: [],
  };
  const nouns = arr(doc.nouns());
  const out = [...typed[type], ...(type === 'other' ? nouns : [])].map((c) => c.replace(/^[,.;:\s]+|[,.;:\s]+$/g, '')).filter(Boolean);
  // "How many" is rarely answered by a bare year.
  return type === 'number' ? out.filter((c) => !/^(1[5-9]\d\d|20\d\d)$/.test(c)) : out;
}

/** Picks the sentence sharing most (rare) question words, then the span in it. */
export function extractAnswer(question: string, hits: SearchHit[], rarity: (stem: string) => number): Extracted | null {
  const q = stems(question);
  let best: { sentence: string; hit: SearchHit; score: number } | null = null;
  hits.slice(0, 5).forEach((hit, rank) => {
    for (const sentence of sentencesOf(hit.text)) {
      const s = stems(sentence);
      let score = 0;
      for (const t of q) if (s.has(t)) score += rarity(t);
      score *= 1 - rank * 0.05;
      if (!best || score > best.score) best = { sentence, hit, score };
    }
  });
  if (!best) return null;
  const { sentence, hit } = best as { sentence: string; hit: SearchHit };
  const type = questionType(question);
  // A span that only repeats the question is no answer.
  const fresh = candidates(sentence, type).filter((c) => [...stems(c)].some((t) => !q.has(t)));
  const pool = fresh.length ? fresh : candidates(sentence, 'other').filter((c) => [...stems(c)].some((t) => !q.has(t)));
  // Closest to the question's words in the sentence wins (answers sit next to what the question mentions).
  // Anchors are where the question's own words (not their stems, which may not occur verbatim) appear.
  const lower = sentence.toLowerCase();
  const questionWords = (question.toLowerCase().match(/\p{L}{3,}/gu) ?? []).filter((w) => q.has(bm25Tokens(w)[0] ?? ''));
  const anchors = questionWords.flatMap((w) => [...lower.matchAll(new RegExp(`\\b${w}`, 'g'))].map((m) => m.index));
  const proximity = (c: string) => {
    const at = lower.indexOf(c.toLowerCase());
    if (at < 0 || !anchors.length) return 1e9;
    return Math.min(...anchors.map((a) => Math.abs(a - at)));
  };
  const span = pool.sort((a, b) => proximity(a) - proximity(b) || a.length - b.length)[0];
  return { answer: span ?? sentence, passage: sentence, source: hit.source, chunk_index: hit.chunk_index };
}
