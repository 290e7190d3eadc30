// Readers for the text data sets in ../shared/data (each README's format traps handled here).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';

export interface Example {
  text: string;
  labels: string[];
  /** Extra training weight (default 1). */
  weight?: number;
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

/** GoEmotions TSV (no header, CSV quoting) mapped to Ekman's six groups plus neutral. */
export function readGoEmotions(dir: string, split: 'train' | 'dev'): Example[] {
  const names = readFileSync(join(dir, 'emotions.txt'), 'utf8')
    .split(/\r?\n/)
    .map((s) => s.trim());
  const ekman = JSON.parse(readFileSync(join(dir, 'ekman_mapping.json'), 'utf8')) as Record<string, string[]>;
  const group = new Map<string, string>([['neutral', 'neutral']]);
  for (const [g, members] of Object.entries(ekman)) for (const m of members) group.set(m, g);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- csv-parse's overloads need the assertion without columns
  const rows = parse(readFileSync(join(dir, `${split}.tsv`)), { delimiter: '\t', quote: '"', relax_column_count: false }) as string[][];
  return rows.map(([text, ids]) => ({
    text: text!,
    labels: [...new Set(ids!.split(',').map((id) => group.get(names[Number(id)]!)!))],
  }));
}
