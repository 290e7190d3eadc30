// Questions about a default ("what's the default port?", "if I don't pass a type, what do I get?"). Reference pages
// describe a setting first and give its default a few sentences later ("autosave_interval seconds: The number of
// seconds ... Defaults to 1800 seconds (30 minutes)."); the sentence that matches the question is the description,
// and the span the question asks for is in the sentence that states the default.
import type { Term } from './extractive.js';

/**
 * A question about what holds when nothing is set: "the default port", "by default", "out of the box", "if I don't
 * pass a type", "when it is not set", "if no name is given".
 */
export const ASKS_DEFAULT =
  /\b(?:defaults?|out of the box|if (?:i|you|we|one) (?:don'?t|do not|never) (?:set|specify|pass|give|provide|configure|change|choose)|(?:if|when) (?:(?:it|that|this|one) (?:is|isn'?t|'s) )?(?:not|never|un)\s?(?:set|specified|given|passed|configured|provided)|(?:if|when) no \w+ (?:is|are) (?:set|specified|given|passed|provided)|when (?:omitted|left out))\b/i;

/**
 * A question about changing a default, not about the default itself ("which option changes the default port?", "how do
 * I use a port other than the default?").
 */
const CHANGES_DEFAULT = /\b(?:change|changes|changing|override|overrides|overriding|replace|replaces|instead of|other than|rather than)\b.*\bdefault/i;

/** Whether a question asks what holds when nothing is set (ASKS_DEFAULT), and not how to change it. */
export const asksDefault = (question: string) => ASKS_DEFAULT.test(question) && !CHANGES_DEFAULT.test(question);

/** How far ahead of the chosen sentence, in sentences of its chunk, a default may be stated. */
export const DEFAULT_AHEAD = 3;
/**
 * How far before it, when none of those states one: a page that lists a setting's type and default before its
 * description ("Type: Number", "Default: 50", "The width of the text before wrapping to a new line.").
 */
export const DEFAULT_BEHIND = 2;

/** Where a sentence states a default: the value is written after its marker ("Defaults to 30", "Default: 30"), or before it ("'nobody' by default"). */
export interface StatedDefault {
  /** The index of the word where a value written after the marker starts. */
  after?: number;
  /** The index (exclusive end) of the words before the marker ("by default", "is the default"). */
  before?: number;
}

/** Longest name, in words, between "Default of" and its colon. */
const NAME_WORDS = 5;
const DEFAULT_WORD = /^default(?:s|ed|ing)?$/i;
const LINKS = new Set(['to', 'is', 'was', 'are', 'be']);
const ROLES = new Set(['value', 'setting', 'settings', 'values']);

/** Where the words of a sentence state a default (StatedDefault), or null when they state none. */
export function statedDefault(terms: Term[]): StatedDefault | null {
  for (let k = 0; k < terms.length; k++) {
    if (!DEFAULT_WORD.test(terms[k]!.text)) continue;
    const prev = terms[k - 1]?.text.toLowerCase();
    // "... 'nobody' by default", "..., which is the default": the value comes before. "By default, ..." opens the
    // sentence: what it says follows, and no position is marked.
    if (prev === 'by' || (prev === 'the' && /^(?:is|are|was)$/i.test(terms[k - 2]?.text ?? ''))) {
      const start = prev === 'by' ? k - 1 : k - 2;
      return start > 0 ? { before: start } : {};
    }
    // "Default: 30", "defaults to 1800 seconds", "the default value is 5432".
    if (/[:=]/.test(terms[k]!.post)) return { after: k + 1 };
    // A table's Default column as readable.ts reads a row: "Default of maxThreads: 4".
    if (/^(?:of|for)$/i.test(terms[k + 1]?.text ?? '')) {
      const colon = terms.slice(k + 1, k + 1 + NAME_WORDS).findIndex((t) => /[:=]/.test(t.post));
      if (colon >= 0) return { after: k + 2 + colon };
    }
    let at = k + 1;
    if (ROLES.has(terms[at]?.text.toLowerCase() ?? '')) at++;
    if (/[:=]/.test(terms[at - 1]!.post) && at > k + 1) return { after: at };
    if (LINKS.has(terms[at]?.text.toLowerCase() ?? '')) return { after: at + 1 };
    // "The default port is 8080", "Default buckets of the GC histogram are [...]": the setting named between the
    // marker and its verb, within one clause.
    const named = namedDefault(terms, k);
    if (named !== null) return { after: named };
  }
  return null;
}

/** "is", "are" or "was" within NAME_WORDS + 1 words after the marker at `k`, no clause break between: the value's first word. */
function namedDefault(terms: Term[], k: number): number | null {
  for (let at = k + 1; at <= k + NAME_WORDS + 1 && at < terms.length - 1; at++) {
    if (/^(?:is|are|was)$/i.test(terms[at]!.text)) return at > k + 1 ? at + 1 : null;
    if (/[,;:.!?()]/.test(terms[at]!.post)) return null;
  }
  return null;
}

/**
 * Of the scored spans of a sentence that states a default, the one that gives it: the best-scoring span that starts
 * within two words after the marker ("Defaults to [1800 seconds]"), or ends within two words before it ("['nobody'] by
 * default"); with no position marked, the best-scoring span. Null when no span is placed so.
 */
export function defaultSpan<S extends { from: number; to: number; score: number }>(stated: StatedDefault, spans: S[]): S | null {
  const placed = spans.filter((s) =>
    stated.after !== undefined
      ? s.from >= stated.after && s.from <= stated.after + 2
      : stated.before !== undefined
        ? s.to <= stated.before && s.to >= stated.before - 2
        : true,
  );
  return placed.length ? placed.reduce((a, b) => (b.score > a.score ? b : a)) : null;
}
