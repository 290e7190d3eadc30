// Extractive question answering over a question-answering model's start and end logits, with character offsets:
// the context is cut into words whose tokens are known, so the best token span maps back to the original text.
import { type PreTrainedModel, type PreTrainedTokenizer, Tensor } from '@huggingface/transformers';

export interface QaAnswer {
  /** The span of the context, as written there. */
  answer: string;
  /** p(start) * p(end), each a softmax over the context positions of the window that found the span. */
  score: number;
  /** Character offsets into the context: context.slice(start, end) === answer. */
  start: number;
  end: number;
}

export interface QaReader {
  answer(question: string, context: string): Promise<QaAnswer>;
  /** Frees the model's ONNX session. */
  dispose(): Promise<void>;
}

/** Longest answer considered, in tokens (the SQuAD convention). */
const MAX_ANSWER_TOKENS = 30;
/** Tokens two neighbouring windows share, so an answer cut by a window edge is whole in the next one. */
const WINDOW_OVERLAP = 128;

interface ContextToken {
  id: number;
  /** Character span of the word the token belongs to. */
  start: number;
  end: number;
}

/**
 * Words (letters and digits, with what joins them: "30,000", "don't") and single other characters, so that an
 * answer never drags a trailing comma or bracket along. Each is encoded alone, with the space before it when there
 * is one (byte-level BPE tokenizers mark that space in the token).
 */
function contextTokens(tokenizer: PreTrainedTokenizer, context: string): ContextToken[] {
  const out: ContextToken[] = [];
  for (const m of context.matchAll(/[\p{L}\p{N}](?:\S*[\p{L}\p{N}])?|\S/gu)) {
    const start = m.index;
    const spaced = start > 0 && /\s/.test(context[start - 1]!);
    for (const id of tokenizer.encode(spaced ? ` ${m[0]}` : m[0], { add_special_tokens: false })) out.push({ id, start, end: start + m[0].length });
  }
  return out;
}

/** The special tokens around a question and its context, as this tokenizer places them (BERT, RoBERTa, ...). */
function pairTemplate(tokenizer: PreTrainedTokenizer, question: string): { prefix: number[]; suffix: number[] } {
  const marker = tokenizer.encode(' x', { add_special_tokens: false });
  const pair = tokenizer.encode(question, { text_pair: 'x' });
  for (let at = pair.length - marker.length; at >= 0; at--) {
    if (marker.every((id, k) => pair[at + k] === id)) return { prefix: pair.slice(0, at), suffix: pair.slice(at + marker.length) };
  }
  throw new Error('the tokenizer does not keep the context of a question/context pair');
}

function softmaxOver(logits: Float32Array, from: number, to: number): number[] {
  let max = -Infinity;
  for (let i = from; i < to; i++) max = Math.max(max, logits[i]!);
  const exp = Array.from({ length: to - from }, (_, i) => Math.exp(logits[from + i]! - max));
  const sum = exp.reduce((s, x) => s + x, 0);
  return exp.map((x) => x / sum);
}

export function createQaReader(tokenizer: PreTrainedTokenizer, model: PreTrainedModel): QaReader {
  // Typed as any by transformers.js; a number, or Infinity when the tokenizer config does not say.
  const declared = Number(tokenizer.model_max_length);
  const maxLength = Math.min(Number.isFinite(declared) ? declared : 512, 512);
  const padId = (tokenizer as unknown as { pad_token_id?: number }).pad_token_id ?? 0;
  return {
    async answer(question, context) {
      const tokens = contextTokens(tokenizer, context);
      const none = { answer: '', score: 0, start: 0, end: 0 };
      if (!tokens.length || !question.trim()) return none;
      const { prefix, suffix } = pairTemplate(tokenizer, question);
      const room = maxLength - prefix.length - suffix.length;
      if (room < 8) throw new Error(`the question is too long for the reader's ${maxLength}-token window`);
      const stride = Math.max(1, room - Math.min(WINDOW_OVERLAP, Math.floor(room / 2)));
      const windows: ContextToken[][] = [];
      for (let at = 0; ; at += stride) {
        windows.push(tokens.slice(at, at + room));
        if (at + room >= tokens.length) break;
      }
      // One batch: every window padded to the longest; token types 0 for the question part, 1 for the context.
      const width = prefix.length + Math.max(...windows.map((w) => w.length)) + suffix.length;
      const ids = new BigInt64Array(windows.length * width).fill(BigInt(padId));
      const mask = new BigInt64Array(windows.length * width);
      const types = new BigInt64Array(windows.length * width);
      windows.forEach((w, b) => {
        const row = [...prefix, ...w.map((t) => t.id), ...suffix];
        row.forEach((id, i) => {
          ids[b * width + i] = BigInt(id);
          mask[b * width + i] = 1n;
          types[b * width + i] = i < prefix.length ? 0n : 1n;
        });
      });
      const dims = [windows.length, width];
      const out = (await model({
        input_ids: new Tensor('int64', ids, dims),
        attention_mask: new Tensor('int64', mask, dims),
        token_type_ids: new Tensor('int64', types, dims),
      })) as { start_logits: Tensor; end_logits: Tensor };
      let best = { score: -1, window: 0, first: 0, last: 0 };
      windows.forEach((w, b) => {
        // Only context positions can start or end an answer.
        const from = b * width + prefix.length;
        const startP = softmaxOver(out.start_logits.data as Float32Array, from, from + w.length);
        const endP = softmaxOver(out.end_logits.data as Float32Array, from, from + w.length);
        for (let e = 0; e < w.length; e++) {
          for (let s = Math.max(0, e - MAX_ANSWER_TOKENS + 1); s <= e; s++) {
            const score = startP[s]! * endP[e]!;
            if (score > best.score) best = { score, window: b, first: s, last: e };
          }
        }
      });
      const w = windows[best.window]!;
      const start = w[best.first]!.start;
      const end = w[best.last]!.end;
      return { answer: context.slice(start, end), score: best.score, start, end };
    },
    dispose: async () => void (await model.dispose()),
  };
}
