// What kind of answer a question wants. A factoid question (who, when, where, how many, which X, what year, what did
// X abolish...) is answered by a short span of a sentence; an open question (why, how, describe, explain, what did X
// say / propose / warn about Y, what were the effects of Y...) by whole sentences.
import nlp from 'compromise';
import { DISCOURSE, NUMBER_WORDS } from './lexical.js';

export type AnswerType = 'factoid' | 'open';

/** "how" followed by one of these asks for a quantity or a degree (a factoid), not a manner or an explanation. */
const HOW_QUANTITY = /\bhow (many|much|long|far|old|large|big|small|tall|high|deep|wide|fast|often|few|early|late|soon|heavy|hot|cold|frequently|severe)\b/;

const OPEN: RegExp[] = [
  /^\s*(why|how come)\b/,
  /\bwhy\b/,
  /^\s*(describe|explain|summari[sz]e|discuss|outline|compare|tell me|give me an overview|what about)\b/,
  /\b(tell me (about|more)|in what way|for what reason|what is the (reason|purpose|significance|meaning|point|idea))\b/,
  new RegExp(`\\bwhat (do|does|did|will|would|can|could|should|has|have|had)\\b.*\\b(${DISCOURSE})\\b`),
  new RegExp(`\\b(${DISCOURSE}) (about|on|regarding|concerning)\\b`),
  // What comes about, what someone does or is to do: an account of events or of an action.
  /\bwhat (happens|happened|will happen|would happen|could happen|is going to happen)\b/,
  /\bwhat (becomes|became|will become|has become) of\b/,
  /\b(supposed|expected|required|meant|allowed|going) to do\b/,
  /\bwhat (do|does|did|should|must|can|could|would|will|am|are|is|was|were)\b.* do (to|for(?! a living)|about|with|when|if|after)\b/,
  /\bwhat (was|were|is|are) (the |his |her |their |its |[\w-]+'s? )?(main |central |overall )?(view|views|position|stance|opinion|attitude|argument|arguments|message|vision|philosophy|legacy|reasons?|consequences?|effects?|impact|significance|causes?|benefits?|risks?|dangers?|idea|point|themes?|differences?|distinction|advantages?|disadvantages?|pros and cons|trade-?offs?)\b/,
];

/**
 * What a thing is for or what it does ("What is cscope mainly for?", "What is the relay used for?", "What does the
 * daemon do?", "What can the library be used for?"): a use or a function, told by a sentence, not a span.
 */
const PURPOSE: RegExp[] = [
  /^\s*what (?:is|are|was|were) \S.*? (?:(?:mainly|mostly|primarily|chiefly|typically|usually|generally|really|actually|exactly) )?(?:(?:used|good|meant|intended|designed|needed|useful|there) )?for\s*[?.!]*\s*$/,
  /^\s*what (?:does|do|did|will|would) \S.*? (?:do|does)\s*[?.!]*\s*$/,
  /^\s*what (?:can|could|should|would|might|will) \S.*? be (?:used|good|useful) for\s*[?.!]*\s*$/,
];

/**
 * The type of answer the question wants: "open" for explanations, manners, reasons and what someone said or
 * proposed; "factoid" for everything else (names, dates, places, quantities, things).
 */
export function answerType(question: string): AnswerType {
  const q = mainQuestion(question);
  if (polar(q)) return 'open';
  // Asking for a person, a time, a place or one of a kind is a factoid, whatever the verb ("which summit did she speak about?").
  if (!/\bwhy\b/.test(q) && /^(\w+ )?(which|who|whom|whose|when|where)\b|^(in |during |by )?what (year|date|month|day|century|decade)\b/.test(q))
    return 'factoid';
  if (/^\s*how\b|\bhow (did|do|does|is|are|was|were|can|could|should|will|would|has|have|had)\b/.test(q) && !HOW_QUANTITY.test(q) && !howDegree(q))
    return 'open';
  if (PURPOSE.some((re) => re.test(q))) return 'open';
  if (embeddedThing(q)) return 'factoid';
  if (definition(question)) return 'open';
  return OPEN.some((re) => re.test(q)) ? 'open' : 'factoid';
}

/** Subjects that open a clause: pronouns, determiners and possessives. */
const SUBJECT = "(?:i|we|you|he|she|it|they|there|this|that|these|those|the|a|an|my|our|your|his|her|its|their|someone|somebody|people|[\\w-]+'s)";
/** "When I modify a document, ...", "If I run it on my own server, ...": a condition or a time set before the question. */
const LEADING_CLAUSE = new RegExp(
  `^(?:when|whenever|if|once|after|before|while|since|because|suppose) ${SUBJECT}\\b(?![^,?]*\\b(?:which|what|who|whom|whose|where|when|why|how)\\b)[^,?]*,\\s*(?=\\S)`,
);
/** "In the zlib FAQ, ...", "With the debug package, ...": where the question looks, set before it (no question word). */
const LEADING_PLACE = new RegExp(
  `^(?:in|inside|within|according to|from|for|per|under|on|with|using|regarding|about|as for) (?![^,?]*\\b(?:which|what|who|whom|whose|where|when|why|how)\\b)[^,?]{1,60},\\s*(?=\\S)`,
);
const AUXILIARY =
  "(?:can|could|do|does|did|is|are|am|was|were|should|shall|may|might|must|will|would|has|have|had|isn't|aren't|doesn't|don't|didn't|can't|won't|wouldn't|shouldn't)";
/** A yes-or-no question: an auxiliary verb first ("Can I sell it?", "Is the numbering the same?"). */
const POLAR = new RegExp(`^${AUXILIARY}\\s+\\S`);

/**
 * The question in lower case, "what's" (or "whats") read as "what is", without a condition, a time or a place set
 * before it ("When I modify a document under the licence, what am I supposed to do with X?" asks what to do, not when;
 * "In the zlib FAQ, is zlib thread-safe?" is a yes-or-no question).
 */
function mainQuestion(question: string): string {
  return withoutLeadingClause(
    question
      .toLowerCase()
      .replace(/[’`]/g, "'")
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/\b(what|who|where|when|how|which|that|there)'s\b/g, '$1 is')
      // "whats the difference", typed without the apostrophe.
      .replace(/\bwhats\b/g, 'what is'),
  );
}

const withoutLeadingClause = (q: string) => q.replace(LEADING_PLACE, '').replace(LEADING_CLAUSE, '');

/**
 * "Can I sell copies?", "We ship a device. Do we have to give buyers the keys?", "If I run it on my server, does that
 * count as conveying it?": yes or no, with the reason, is told by a sentence. Any sentence of the question may ask it,
 * after a condition set before it. A choice between named options ("Was it assembled on earth or in space?") is
 * answered by one of them, a span.
 */
function polar(q: string): boolean {
  return !/\bor\b/.test(q) && q.split(/(?<=[.?!;])\s+/).some((s) => POLAR.test(withoutLeadingClause(s)));
}

/**
 * "How popular was the show?", "How recently...", "How successful was the effort?": "how" before an adjective or an
 * adverb asks for a degree, answered like a quantity ("the most popular show", "a disaster"), as HOW_QUANTITY's
 * words are; "how" before a verb asks for a manner.
 */
function howDegree(q: string): boolean {
  const next = /\bhow ([a-z]+)\b/.exec(q)?.[1];
  if (!next || ['come', 'else', 'exactly', 'so', 'then'].includes(next)) return false;
  const term = (nlp(next).terms().json() as { terms: { tags: string[] }[] }[])[0];
  const tags = term?.terms[0]?.tags ?? [];
  return (tags.includes('Adjective') || tags.includes('Adverb')) && !tags.includes('Verb');
}

/** The size of a numbered set, two to ten, in words or digits. */
const SET_SIZE = [...NUMBER_WORDS.slice(2, 11), '\\d+'].join('|');
/** "What is the Monroe Doctrine?", "What was Nicholas Storch?", "What is 'grey literature'?": every word of the name capitalised, or quoted. */
const WHAT_IS_NAME = /^\s*[Ww]hat (?:is|are|was|were) (?:the |an? )?((?:[\p{Lu}\d][\p{L}\p{N}'’.-]*\s*)+|['"‘“][^'"’”]+['"’”])\s*\?*\s*$/u;
/**
 * "What are the four freedoms?", "What were the four freedoms Roosevelt described?": the members of a numbered set,
 * listed one by one. Not "the two forms of X" or "the two affiliates for Y", whose members one sentence names.
 */
const WHAT_ARE_THE_N = new RegExp(
  `^\\s*what (?:are|were) the (${SET_SIZE}) [\\w'-]+(?:\\s+(?!(?:of|in|for|on|at|to|from|by|with|about|under|over|between|during|after|before|into|near)\\b)[\\w'.-]+){0,5}\\s*\\?*\\s*$`,
  'i',
);

/** The size of the numbered set a question asks for ("What are the four freedoms?" -> 4), or null. */
export function numberedSet(question: string): number | null {
  const m = WHAT_ARE_THE_N.exec(question)?.[1];
  if (!m) return null;
  return /^\d+$/.test(m) ? Number(m) : NUMBER_WORDS.indexOf(m.toLowerCase());
}

/** Heads that make "what is the X Y?" ask for a value ("the average family size"), not for a description. */
const ATTRIBUTES = new Set(
  (
    'name size number population capital cost costs price date age height length width depth distance rate amount total ' +
    'percentage share budget salary title area speed weight score result value level time year day month figure sum ' +
    'deficit surplus debt revenue income balance count majority margin ratio'
  ).split(' '),
);
/** "What is the homestead law?": a thing named by common words, two to four of them (a modifier and its head). */
const WHAT_IS_COMMON_NAME = /^\s*[Ww]hat (?:is|was|are|were) (?:the|an?) ((?:[a-z][a-z'-]* ){1,3})([a-z][a-z-]*)\s*\?*\s*$/;
/**
 * Modifiers that pick one of several ("the largest city", "the first act", "the current rate", "the default port",
 * "the maximum current"): an attribute.
 */
const SELECTING =
  /^(\w+est|first|second|third|last|next|previous|main|only|current|present|latest|new|old|other|same|whole|default|maximum|minimum|max|min|initial)$/;

/** "What is the homestead law?", "What was the gold standard?": a description, unless the head is an attribute. */
function commonNameDefinition(question: string): boolean {
  const m = WHAT_IS_COMMON_NAME.exec(question);
  if (!m) return false;
  const modifiers = m[1]!.trim().split(' ');
  if (ATTRIBUTES.has(m[2]!) || modifiers.some((w) => SELECTING.test(w))) return false;
  // Only nouns and adjectives, ending in a noun: "the mace made of", "the naval base called" ask about something else.
  const tags = (nlp(`the ${m[1]!}${m[2]!}`).json() as { terms: { tags: string[] }[] }[]).flatMap((t) => t.terms.slice(1).map((x) => x.tags));
  return (
    tags.length === modifiers.length + 1 &&
    tags.every((t) => (t.includes('Noun') || t.includes('Adjective')) && !t.includes('Verb') && !t.includes('Preposition') && !t.includes('Pronoun')) &&
    tags.at(-1)!.includes('Noun')
  );
}

/**
 * A question asking what a named thing is ("What is the Monroe Doctrine?") or what the members of a numbered set are
 * ("What are the four freedoms?") wants a description or a list: a sentence, not a span of one (a span had given
 * "Monroe Doctrine is" and "essential human"). An attribute ("What was the average family size?") stays a factoid.
 */
function definition(question: string): boolean {
  const name = WHAT_IS_NAME.exec(question)?.[1];
  if (name || commonNameDefinition(question)) return true;
  return WHAT_ARE_THE_N.test(question);
}

const SAYING = new RegExp(`\\bwhat (do|does|did|will|would|can|could|should|has|have|had)\\b.*?\\b(${DISCOURSE})\\b(.*)$`);

/**
 * "What did Luther think was the only source of knowledge?", "What does the UN want to stabilize?": a verb of saying
 * or wanting followed by a clause of its own asks for the thing that clause leaves out, a factoid; "What did Obama say
 * about health insurance?" (nothing but a topic after the verb) asks for what was said.
 */
function embeddedThing(q: string): boolean {
  const rest = SAYING.exec(q)?.[3]
    ?.replace(/[?.!]+\s*$/, '')
    .trim();
  // "What does Obama want to do about clean energy?": what someone means to do is an account, not a thing.
  if (!rest || /^(about|on|regarding|concerning|of)\b/.test(rest) || /^to (do|be done|change)\b/.test(rest)) return false;
  return nlp(rest).has('#Verb');
}
