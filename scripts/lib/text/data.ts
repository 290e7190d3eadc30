// Readers for the text data sets under data/datasets (each README's format traps handled here).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

export interface Example {
  text: string;
  labels: string[];
  /** Extra training weight (default 1). */
  weight?: number;
  /** The labels the example's loss and prediction choose among (default all): SST-2 knows positive and negative only. */
  allowed?: string[];
}

/** Financial PhraseBank: latin-1, CRLF, "sentence@label" split on the last @. */
export function readPhrasebank(dir: string, level: 'AllAgree' | '75Agree' | '66Agree' | '50Agree'): Example[] {
  const text = readFileSync(join(dir, `Sentences_${level}.txt`)).toString('latin1');
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .map((line) => {
      const at = line.lastIndexOf('@');
      return { text: line.slice(0, at).trim(), labels: [line.slice(at + 1).trim()] };
    });
}

/** Twitter financial news: CSV text,label with 0 bearish, 1 bullish, 2 neutral. */
export function readTweets(file: string): Example[] {
  const map = ['negative', 'positive', 'neutral'];
  const rows = parse<{ text: string; label: string }>(readFileSync(file), { columns: true, skip_empty_lines: true });
  return rows.map((r) => ({ text: r.text, labels: [map[Number(r.label)]!] }));
}

/** GoEmotions TSV rows (no header, CSV quoting) with their emotion names. */
function readGoEmotionsRows(dir: string, split: 'train' | 'dev'): { text: string; emotions: string[] }[] {
  const names = readFileSync(join(dir, 'emotions.txt'), 'utf8')
    .split(/\r?\n/)
    .map((s) => s.trim());
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- csv-parse's overloads need the assertion without columns
  const rows = parse(readFileSync(join(dir, `${split}.tsv`)), { delimiter: '\t', quote: '"', relax_column_count: false }) as string[][];
  return rows.map(([text, ids]) => ({ text: text!, emotions: ids!.split(',').map((id) => names[Number(id)]!) }));
}

/** GoEmotions mapped to Ekman's six groups plus neutral. */
export function readGoEmotions(dir: string, split: 'train' | 'dev'): Example[] {
  const ekman = JSON.parse(readFileSync(join(dir, 'ekman_mapping.json'), 'utf8')) as Record<string, string[]>;
  const group = new Map<string, string>([['neutral', 'neutral']]);
  for (const [g, members] of Object.entries(ekman)) for (const m of members) group.set(m, g);
  return readGoEmotionsRows(dir, split).map(({ text, emotions }) => ({ text, labels: [...new Set(emotions.map((e) => group.get(e)!))] }));
}

/**
 * GoEmotions mapped to sentiment through the paper's grouping (sentiment_mapping.json: positive, negative, ambiguous;
 * `neutral` is its own class). `single` keeps only single-label comments (the evaluation set). `unanimous` also keeps a
 * multi-label comment when all its emotions fall in the same group (admiration + joy is positive); a comment that
 * mixes groups, or has any ambiguous emotion, is left out either way.
 */
export function readGoEmotionsSentiment(dir: string, split: 'train' | 'dev', rows: 'single' | 'unanimous'): Example[] {
  const mapping = JSON.parse(readFileSync(join(dir, 'sentiment_mapping.json'), 'utf8')) as Record<string, string[]>;
  const group = new Map<string, string>([['neutral', 'neutral']]);
  for (const [g, members] of Object.entries(mapping)) for (const m of members) group.set(m, g);
  const out: Example[] = [];
  for (const { text, emotions } of readGoEmotionsRows(dir, split)) {
    if (rows === 'single' && emotions.length !== 1) continue;
    const groups = new Set(emotions.map((e) => group.get(e)));
    if (groups.size !== 1) continue;
    const [g] = groups;
    if (g === 'positive' || g === 'negative' || g === 'neutral') out.push({ text, labels: [g] });
  }
  return out;
}

/**
 * SST-2 (GLUE's binary Stanford Sentiment Treebank): `label<TAB>sentence` with a header, 0 negative and 1 positive.
 * The text is lower-cased and PTB-tokenised; contractions are joined again ("does n't" -> "doesn't", "it 's" ->
 * "it's") and brackets restored, so the words split as in everyday text under the BERT pre-tokeniser.
 */
export function readSst2(file: string): Example[] {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/).slice(1);
  const out: Example[] = [];
  for (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const text = line
      .slice(tab + 1)
      .replace(/ (n't|'s|'re|'ve|'ll|'d|'m)\b/g, '$1')
      .replace(/-lrb-/g, '(')
      .replace(/-rrb-/g, ')')
      .trim();
    if (text) out.push({ text, labels: [line.slice(0, tab) === '1' ? 'positive' : 'negative'], allowed: ['positive', 'negative'] });
  }
  return out;
}

/**
 * TweetEval sentiment: one tweet a line in val_text.txt, its label (0 negative, 1 neutral, 2 positive) in
 * val_labels.txt. About 200 tweets keep JSON-style escapes as text (`Don\u2019t`, `\u002c`): they are decoded.
 */
export function readTweetEval(dir: string): Example[] {
  const map = ['negative', 'neutral', 'positive'];
  const texts = readFileSync(join(dir, 'val_text.txt'), 'utf8').split(/\r?\n/);
  const labels = readFileSync(join(dir, 'val_labels.txt'), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim());
  const decode = (t: string) => t.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return labels.map((l, i) => ({ text: decode(texts[i]!).trim(), labels: [map[Number(l)]!] }));
}
