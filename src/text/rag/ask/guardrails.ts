// Guardrails: layer 1 checks the question before anything is retrieved; layer 3 checks the answer's grounding.
import { bm25Tokens } from '../../search/bm25.js';
import { splitSentences } from '../../sentences.js';

export interface GuardrailVerdict {
  ok: boolean;
  reason?: string;
}

export const QUESTION_LIMITS = { minChars: 3, maxChars: 1000 };

/** Prompt-injection patterns: attempts to override instructions, extract the prompt, or switch roles. */
const INJECTION: RegExp[] = [
  /\b(ignore|disregard|forget|override|bypass)\b[^.?!]{0,40}\b(previous|prior|above|earlier|all|your|the|any)\b[^.?!]{0,20}\b(instructions?|prompts?|rules|directions|guidelines|context)\b/i,
  /\b(system|hidden|initial|original|developer)\s+(prompt|message|instructions?)\b/i,
  /\b(reveal|show|print|repeat|output|leak|tell me)\b[^.?!]{0,30}\b(your|the)\s+(prompt|instructions|rules|system message)\b/i,
  /\byou are now\b|\bact as (an? )?(unfiltered|unrestricted|jailbroken|different)\b|\bpretend (to be|you are)\b/i,
  /\b(jailbreak|DAN mode|developer mode|do anything now)\b/i,
  /<\/?(system|assistant|user)>|\[\/?(INST|SYS)\]|###\s*(system|instruction)/i,
];

export function checkQuestion(question: unknown): GuardrailVerdict {
  if (typeof question !== 'string') return { ok: false, reason: 'the question must be text' };
  const q = question.trim();
  if (!q) return { ok: false, reason: 'the question is empty' };
  if (q.length < QUESTION_LIMITS.minChars) return { ok: false, reason: `the question is too short (at least ${QUESTION_LIMITS.minChars} characters)` };
  if (q.length > QUESTION_LIMITS.maxChars) return { ok: false, reason: `the question is too long (at most ${QUESTION_LIMITS.maxChars} characters)` };
  if ((q.match(/\p{L}/gu) ?? []).length < 2) return { ok: false, reason: 'the question has no words' };
  if (INJECTION.some((re) => re.test(q))) return { ok: false, reason: "the question looks like an attempt to change the assistant's instructions" };
  return { ok: true };
}

/** Content tokens (stemmed, stop words removed), as BM25 sees them. */
const content = (text: string) => bm25Tokens(text).filter((t) => t.length > 1);

/**
 * Share of the answer's sentences whose content words are mostly (>= 60%) found in the retrieved text.
 * A sentence without content words counts as supported.
 */
export function groundingScore(answer: string, context: string[]): { score: number; unsupported: string[] } {
  const known = new Set(context.flatMap(content));
  // Citation marks ([1], [2][3]) are not words of the answer.
  const sentences = splitSentences(answer.replace(/\[\d+\]/g, ''));
  if (!sentences.length) return { score: 0, unsupported: [] };
  const unsupported = sentences.filter((s) => {
    const words = content(s);
    if (!words.length) return false;
    return words.filter((w) => known.has(w)).length / words.length < 0.6;
  });
  return { score: (sentences.length - unsupported.length) / sentences.length, unsupported };
}
