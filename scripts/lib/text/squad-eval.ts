// Retrieval on SQuAD: paragraphs as documents, questions as queries; recall@k and MRR for BM25, semantic, hybrid.
import { readFileSync } from 'node:fs';
import { Bm25Index } from '../../../src/text/search/bm25.js';
import { weightedFusion } from '../../../src/text/search/hybrid.js';
import { overlapF1 } from '../../../src/text/rag/ask/span-consensus.js';

/** The file an article is written to: its title with anything but letters, digits, _ and - as _ ("Super_Bowl_50.txt"). */
export const squadFileName = (title: string) => `${title.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`;

export interface Squad {
  paragraphs: string[];
  questions: { question: string; paragraph: number; answers: string[] }[];
}

export function readSquad(file: string): Squad {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    data: { paragraphs: { context: string; qas: { question: string; answers: { text: string }[] }[] }[] }[];
  };
  const paragraphs: string[] = [];
  const questions: Squad['questions'] = [];
  for (const article of doc.data) {
    for (const p of article.paragraphs) {
      const index = paragraphs.push(p.context) - 1;
      for (const q of p.qas) questions.push({ question: q.question, paragraph: index, answers: q.answers.map((a) => a.text) });
    }
  }
  return { paragraphs, questions };
}

export interface RetrievalScores {
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  mrr: number;
}

/** Ranks of the gold paragraph per query (Infinity when not in the list). */
export function summarise(ranks: number[]): RetrievalScores {
  const at = (k: number) => ranks.filter((r) => r <= k).length / ranks.length;
  return {
    recall_at_1: at(1),
    recall_at_5: at(5),
    recall_at_10: at(10),
    mrr: ranks.reduce((s, r) => s + (Number.isFinite(r) ? 1 / r : 0), 0) / ranks.length,
  };
}

export type Embed = (texts: string[]) => Promise<Float32Array[]>;

/**
 * Paragraph-level retrieval with the given embedder (vectors are unit length), BM25 and weighted fusions of both:
 * min-max normalised at several semantic weights, and the service's default (theoretical normalisation, weight 0.7).
 */
export async function evaluateRetrieval(squad: Squad, embed: Embed, progress?: (done: number, total: number) => void, semanticWeights = [0.7, 0.5, 0.3]) {
  const bm25 = new Bm25Index();
  squad.paragraphs.forEach((p, i) => bm25.add(String(i), p));
  bm25.build();
  const docVecs: Float32Array[] = [];
  for (let i = 0; i < squad.paragraphs.length; i += 64) {
    docVecs.push(...(await embed(squad.paragraphs.slice(i, i + 64))));
    progress?.(Math.min(i + 64, squad.paragraphs.length), squad.paragraphs.length + squad.questions.length);
  }
  const ranks: Record<string, number[]> = { bm25: [], semantic: [] };
  for (const w of semanticWeights) ranks[`hybrid_${w}`] = [];
  ranks['hybrid_0.7_theoretical'] = [];
  const rankOf = (ids: string[], gold: number) => {
    const r = ids.indexOf(String(gold));
    return r < 0 ? Infinity : r + 1;
  };
  for (let i = 0; i < squad.questions.length; i += 128) {
    const batch = squad.questions.slice(i, i + 128);
    const qVecs = await embed(batch.map((q) => q.question));
    batch.forEach((q, k) => {
      const sims = docVecs.map((d, j) => {
        let s = 0;
        const v = qVecs[k]!;
        for (let x = 0; x < v.length; x++) s += v[x]! * d[x]!;
        return [String(j), s] as [string, number];
      });
      const byId = new Map(sims);
      sims.sort((a, b) => b[1] - a[1]);
      const semanticTop = new Map(sims.slice(0, 50));
      const keywordTop = new Map(bm25.search(q.question, 50));
      // As the service does: a candidate only BM25 found still gets its true similarity.
      for (const id of keywordTop.keys()) if (!semanticTop.has(id)) semanticTop.set(id, byId.get(id)!);
      ranks.semantic!.push(
        rankOf(
          sims.map(([id]) => id),
          q.paragraph,
        ),
      );
      ranks.bm25!.push(rankOf([...keywordTop.keys()], q.paragraph));
      for (const w of semanticWeights)
        ranks[`hybrid_${w}`]!.push(
          rankOf(
            weightedFusion(semanticTop, keywordTop, w, 'minmax').map((s) => s.id),
            q.paragraph,
          ),
        );
      ranks['hybrid_0.7_theoretical']!.push(
        rankOf(
          weightedFusion(semanticTop, keywordTop, 0.7, 'theoretical').map((s) => s.id),
          q.paragraph,
        ),
      );
    });
    progress?.(squad.paragraphs.length + Math.min(i + 128, squad.questions.length), squad.paragraphs.length + squad.questions.length);
  }
  return Object.fromEntries(Object.entries(ranks).map(([k, r]) => [k, summarise(r)]));
}

/** Lower case, no punctuation, no articles, single spaces: the official evaluation script's normalisation. */
export function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

/** Token F1 of a prediction against one gold answer (official SQuAD v1.1 definition). */
export function f1(prediction: string, gold: string): number {
  return overlapF1(normalise(prediction).split(' ').filter(Boolean), normalise(gold).split(' ').filter(Boolean));
}

export const bestF1 = (prediction: string, golds: string[]) => Math.max(0, ...golds.map((g) => f1(prediction, g)));
export const exactMatch = (prediction: string, golds: string[]) => golds.some((g) => normalise(g) === normalise(prediction));
