// Reading-comprehension training sets beside SQuAD for the extractive reader (npm run train:reader): folders of
// documents of other kinds (software references, FAQs, release notes) with questions written on them, under
// train/qa/<set>/ (docs/*.txt, questions.json, SOURCES.md). Never the evaluation collections' documents: those measure.
// Each set's documents are made readable and chunked as the service indexes a folder (index-run.ts), so the candidate
// sentences are those the pipeline reads.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chunkDocument } from '../../../src/text/rag/chunker.js';
import { readableText } from '../../../src/text/rag/readable.js';
import { Bm25Index, bm25Tokens, titleWords } from '../../../src/text/search/bm25.js';

export interface TrainSetQuestion {
  question: string;
  answers: string[];
}

export interface TrainSet {
  name: string;
  /** The chunks of every document of the set, with each chunk's document name. */
  chunks: { text: string; source: string }[];
  /** Each question with the index of its document among the set's documents (for folds by document). */
  questions: (TrainSetQuestion & { document: number })[];
}

/** The sets under `root` (each a folder with docs/ and questions.json), by name. */
export function readTrainSets(root: string): TrainSet[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'questions.json')))
    .map((d) => d.name)
    .sort()
    .map((name) => readTrainSet(join(root, name), name));
}

function readTrainSet(dir: string, name: string): TrainSet {
  const files = readdirSync(join(dir, 'docs'))
    .filter((f) => f.endsWith('.txt'))
    .sort();
  const chunks = files.flatMap((source) => chunkDocument(readableText(readFileSync(join(dir, 'docs', source), 'utf8'))).map((c) => ({ text: c.text, source })));
  const { questions } = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as { questions: (TrainSetQuestion & { source: string })[] };
  return {
    name,
    chunks,
    questions: questions.map((q) => {
      const document = files.indexOf(q.source);
      if (document < 0) throw new Error(`${name}: question "${q.question}" names ${q.source}, which is not in docs/`);
      return { question: q.question, answers: q.answers, document };
    }),
  };
}

export interface Question {
  question: string;
  answers: string[];
  article: number;
}

export interface Half {
  questions: Question[];
  chunks: string[];
  /** Each chunk's document name, as the evaluation's collection writes it (its words are part of the passage). */
  sources: string[];
  bm25: Bm25Index;
  rarity: (stem: string) => number;
  /** Its documents are hard-wrapped files, whose answers may run across a line break (matched whitespace-insensitively). */
  wrapped?: boolean;
}

/** A set's questions over its chunks, with BM25 over those chunks and their rarity, as the pipeline computes them. */
export function indexed(questions: Question[], chunkList: { text: string; source: string }[]): Half {
  const chunks = chunkList.map((c) => c.text);
  const sources = chunkList.map((c) => c.source);
  const bm25 = new Bm25Index();
  chunks.forEach((c, i) => bm25.add(String(i), c, titleWords(sources[i]!)));
  bm25.build();
  // As the pipeline computes it: stem document frequencies over the chunks, smoothed IDF.
  const df = new Map<string, number>();
  for (const c of chunks) for (const s of new Set(bm25Tokens(c))) df.set(s, (df.get(s) ?? 0) + 1);
  const rarity = (stem: string) => Math.log(1 + chunks.length / (1 + (df.get(stem) ?? 0)));
  return { questions, chunks, sources, bm25, rarity };
}
