// The answer without an LLM: the best sentence of the retrieved chunks, and in it the short span that answers.
// Spans are runs of noun-phrase words (tagged by compromise) that the question does not already say; the one whose
// words fit the question's type (who -> a person or organisation, when -> a date, how many -> a number, where -> a
// place) and that sits nearest the question's rare words in the sentence wins.
import nlp from 'compromise';
import { bm25Tokens } from '../../search/bm25.js';
import type { SearchHit } from '../service.js';
import { splitSentences } from '../../sentences.js';

export type QuestionType = 'person' | 'date' | 'number' | 'place' | 'other';

export function questionType(question: string): QuestionType {
  const q = question.toLowerCase();
  if (
    /\b(how (many|much|long|far|old|large|big|tall|high|fast|often)|what (percentage|percent|number|amount|proportion|fraction|size|population)|how much)\b/.test(
      q,
    )
  )
    return 'number';
  if (/\b(what|which) (is|was|were|are) the (cost|price|population|number|amount|percentage|size|length|value)\b/.test(q)) return 'number';
  if (/\b(when|what year|which year|what date|what century|what decade|what day|what month|what time|what period|what season)\b/.test(q)) return 'date';
  if (/\b(who|whom|whose)\b/.test(q)) return 'person';
  if (
    /\b(which|what) (person|people|man|woman|player|team|group|band|company|firm|brand|manufacturer|organi[sz]ation|institution|agency|party|network|station|newspaper|magazine|club|church|dynasty|tribe|family|artist|singer|musician|performer|actor|actress|poet|painter|composer|architect|engineer|inventor|philosopher|scientist|writer|author|politician|minister|official|king|queen|president|leader|general|emperor|pope|coach|university|school|court|committee)\b/.test(
      q,
    )
  )
    return 'person';
  if (/\b(where|(what|which) (country|city|state|place|region|continent|river|town|area|location|nation|island|county|province))\b/.test(q)) return 'place';
  return 'other';
}

export interface Extracted {
  answer: string;
  passage: string;
  source: string;
  chunk_index: number;
}

interface Term {
  text: string;
  pre: string;
  post: string;
  tags: Set<string>;
  stem: string;
}

const stems = (s: string) => new Set(bm25Tokens(s));

// Words that can be part of an answer phrase.
const NOMINAL = ['Noun', 'ProperNoun', 'Adjective', 'Value', 'Acronym', 'Possessive', 'Date', 'Money', 'Percent', 'Unit', 'Month', 'Year'];
// How well a word fits the expected answer type: the specific tags fully, a generic proper noun partly.
const TYPED: Record<Exclude<QuestionType, 'other'>, Record<string, number>> = {
  person: { Person: 1, Organization: 1, ProperNoun: 0.6, Acronym: 0.5 },
  date: { Date: 1, Month: 1, Year: 1, WeekDay: 1, Ordinal: 0.6 },
  number: { Value: 1, Money: 1, Percent: 1, Cardinal: 1 },
  place: { Place: 1, Country: 1, City: 1, Region: 1, ProperNoun: 0.6 },
};

const fit = (t: Term, wanted: Record<string, number>) => Math.max(0, ...[...t.tags].map((tag) => wanted[tag] ?? 0));

function termsOf(sentence: string): Term[] {
  const json = nlp(sentence).json({ terms: { tags: true } }) as { terms: { text: string; pre: string; post: string; tags: string[] }[] }[];
  return json
    .flatMap((s) => s.terms)
    .map((t) => {
      const tags = new Set(t.tags);
      // compromise tags a year as a plain number in most contexts ("since 1963"); years and decades are dates here.
      if (/^(1\d{3}|20\d\d)s?$|^\d0s$/.test(t.text)) tags.add('Year');
      if (/^(century|centuries|decade|BC|BCE|AD|CE)$/i.test(t.text)) tags.add('Date');
      return { ...t, tags, stem: bm25Tokens(t.text)[0] ?? '' };
    });
}

const isNominal = (t: Term) => NOMINAL.some((tag) => t.tags.has(tag)) && !t.tags.has('Pronoun');

interface Span {
  from: number;
  to: number; // exclusive
}

/**
 * Maximal runs of nominal words (not crossing punctuation), trimmed of determiners and of the question's own words
 * at both ends; a run made only of the question's words is no answer.
 */
function spansOf(terms: Term[], question: Set<string>): Span[] {
  const runs: Span[] = [];
  let from = -1;
  const close = (i: number) => {
    if (from >= 0) runs.push({ from, to: i });
    from = -1;
  };
  terms.forEach((t, i) => {
    if (!isNominal(t)) return close(i);
    if (from < 0) from = i;
    if (/[,;:()"]/.test(t.post)) close(i + 1);
  });
  close(terms.length);
  const known = (t: Term) => t.tags.has('Determiner') || (t.stem !== '' && question.has(t.stem)) || (t.stem === '' && !t.tags.has('Value'));
  const out: Span[] = [];
  for (let { from, to } of runs) {
    while (from < to && known(terms[from]!)) from++;
    while (to > from && known(terms[to - 1]!)) to--;
    if (to > from) out.push({ from, to });
  }
  return out;
}

function render(terms: Term[], s: Span): string {
  let out = '';
  for (let i = s.from; i < s.to; i++) out += (i > s.from ? terms[i]!.pre : '') + terms[i]!.text + (i < s.to - 1 ? terms[i]!.post : '');
  return out.replace(/^[\s"'([]+|[\s"',.;:)\]]+$/g, '').replace(/\s+/g, ' ');
}

/** The stem of the first noun after "what"/"which" in the question, if any. */
function headNoun(question: string): string | null {
  const m = /\b(?:what|which)\s+((?:[\w'-]+\s+){0,2}[\w'-]+)/i.exec(question);
  if (!m) return null;
  for (const t of termsOf(m[1]!)) {
    if (t.tags.has('Verb') || t.tags.has('Copula')) return null;
    if (t.tags.has('Noun') && t.stem) return t.stem;
  }
  return null;
}

/** The best span of one sentence for the question. */
function bestSpan(sentence: string, question: string, q: Set<string>, rarity: (stem: string) => number): string | null {
  const terms = termsOf(sentence);
  const type = questionType(question);
  // Where the question's words occur in the sentence, weighted by how rare they are.
  // The noun a "what"/"which" question asks about ("which fullback", "what position") often stands right next to
  // the answer ("fullback Mike Tolbert"): it weighs more.
  const head = headNoun(question);
  const anchors: { at: number; weight: number }[] = [];
  terms.forEach((t, i) => {
    if (t.stem && q.has(t.stem)) anchors.push({ at: i, weight: rarity(t.stem) * (t.stem === head ? 3 : 1) });
  });
  const total = anchors.reduce((a, b) => a + b.weight, 0) || 1;
  // "What did the treaty abolish?": the answer is often the object right after the question's verb in the sentence.
  const verbs = new Set(
    termsOf(question)
      .filter((t) => t.tags.has('Verb') && !t.tags.has('Auxiliary') && !t.tags.has('Copula') && t.stem)
      .map((t) => t.stem),
  );
  const afterVerb = (from: number) => {
    for (let i = from - 1; i >= Math.max(0, from - 3); i--) {
      const t = terms[i]!;
      if (t.tags.has('Verb') && verbs.has(t.stem)) return true;
      if (!t.tags.has('Determiner') && !t.tags.has('Preposition') && !t.tags.has('Adjective')) return false;
    }
    return false;
  };
  // Each span, and within it each run of words of the expected type (the number of "five solo tackles").
  const options: { inner: Span; typed: number }[] = [];
  for (const span of spansOf(terms, q)) {
    options.push({ inner: span, typed: 0 });
    if (type === 'other') continue;
    const wanted = TYPED[type];
    for (let i = span.from; i < span.to; i++) {
      if (fit(terms[i]!, wanted) === 0) continue;
      let to = i;
      let typed = 0;
      while (to < span.to && fit(terms[to]!, wanted) > 0) typed = Math.max(typed, fit(terms[to++]!, wanted));
      // "How many" is rarely answered by a bare year; a number keeps its unit or scale ("$5 million", "15 percent").
      const bareYear = type === 'number' && terms.slice(i, to).every((t) => t.tags.has('Year'));
      if (type === 'number') while (to < span.to && terms[to]!.tags.has('Unit')) to++;
      if (!bareYear) options.push({ inner: { from: i, to }, typed });
      i = to;
    }
  }
  let best: { inner: Span; score: number } | null = null;
  for (const { inner, typed } of options) {
    let near = 0;
    for (const a of anchors) {
      const d = a.at < inner.from ? inner.from - a.at : a.at >= inner.to ? a.at - inner.to + 1 : 0;
      near += a.weight / (1 + d);
    }
    const length = inner.to - inner.from;
    // A lone adjective ("steep", "particular") is rarely what was asked.
    let nounish = false;
    for (let i = inner.from; i < inner.to; i++) if (!terms[i]!.tags.has('Adjective') || terms[i]!.tags.has('Noun')) nounish = true;
    const score = typed + near / total + (afterVerb(inner.from) ? 0.2 : 0) - 0.03 * Math.max(0, length - 4) - (nounish ? 0 : 0.3);
    if (!best || score > best.score) best = { inner, score };
  }
  return best && render(terms, best.inner);
}

/** Picks the sentence sharing most (rare) question words, then the span in it. */
export function extractAnswer(question: string, hits: SearchHit[], rarity: (stem: string) => number): Extracted | null {
  const q = stems(question);
  let best: { sentence: string; hit: SearchHit; score: number } | null = null;
  hits.slice(0, 5).forEach((hit, rank) => {
    for (const sentence of splitSentences(hit.text)) {
      const s = stems(sentence);
      let score = 0;
      for (const t of q) if (s.has(t)) score += rarity(t);
      score *= 1 - rank * 0.05;
      if (!best || score > best.score) best = { sentence, hit, score };
    }
  });
  if (!best) return null;
  const { sentence, hit } = best as { sentence: string; hit: SearchHit };
  const span = bestSpan(sentence, question, q, rarity);
  return { answer: span || sentence, passage: sentence, source: hit.source, chunk_index: hit.chunk_index };
}
