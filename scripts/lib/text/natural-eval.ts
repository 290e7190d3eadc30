// The natural-question evaluation: a folder of documents indexed into a throw-away data directory, every question of
// a question file asked through /rag/ask's pipeline without an LLM, and each answer scored as the user would see it.
// An answerable question is right when one of its acceptable answers (normalised as SQuAD's) occurs in the answer or
// its sentence; an unanswerable one is right when the answer is "not in the collection". Wrong answers are sorted by
// where they went wrong: retrieval miss (no kept passage holds an acceptable answer), selection miss (one does, the
// answer shown does not), false not-found, false answer. Stricter, "answer itself right" counts an answerable question
// only when the answer alone (a factoid's span, without its sentence) holds an acceptable answer. Strictly right, the
// figure reported: a factoid or document question by its answer alone, an open one by its answer or sentence, an
// unanswerable one by its refusal.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/infra/config.js';
import { fromRoot } from '../../../src/infra/paths.js';
import { round4, writeResults } from '../results.js';

interface NaturalQuestion {
  question: string;
  kind: string;
  answerable: boolean;
  answers: string[];
  source?: string;
}

type Outcome = 'right' | 'retrieval_miss' | 'selection_miss' | 'false_not_found' | 'false_answer';

export async function runNaturalEval(questionsPath: string, docsDir: string, normalise: (s: string) => string): Promise<void> {
  const { questions } = JSON.parse(readFileSync(fromRoot(questionsPath), 'utf8')) as { questions: NaturalQuestion[] };
  const dataDir = mkdtempSync(join(tmpdir(), 'natural-eval-'));
  const config = loadConfig();
  // Without an LLM, whatever the environment says: the extractive answers are what is measured.
  const app = await buildApp({
    config: {
      ...config,
      LLM_API_KEY: undefined,
      LOG_LEVEL: 'warn',
      DOCS_DIR: fromRoot(docsDir),
      DATA_DIR: dataDir,
      RAG_COLLECTION: 'natural-eval',
      RAG_INDEX_ON_START: false,
    },
  });
  // Word-bounded containment of normalised text. A dash or hyphen separates words here (SQuAD's normalisation deletes
  // it, which glues "expression-everywhere" into one word and hides the "speech and expression" a reader sees).
  const words = (s: string) => normalise(s.replace(/[-‐‑‒–—]/g, ' '));
  const contains = (text: string, answer: string) => ` ${words(text)} `.includes(` ${words(answer)} `);
  try {
    const indexed = await (await app.rag.service()).index({ full: true });
    console.log(`indexed ${indexed.documents} documents into ${indexed.chunks_added} chunks`);
    const asker = await app.rag.ask();
    const rows: {
      question: string;
      kind: string;
      right: boolean;
      answer_itself_right: boolean;
      strict_right: boolean;
      outcome: Outcome;
      [field: string]: unknown;
    }[] = [];
    for (const q of questions) {
      const r = await asker.ask(q.question, 5);
      const notFound = r.answer_passage === null;
      const shown = `${r.answer} ${r.answer_passage ?? ''}`;
      let outcome: Outcome;
      if (!q.answerable) outcome = notFound ? 'right' : 'false_answer';
      else if (notFound) outcome = 'false_not_found';
      else if (q.answers.some((a) => contains(shown, a))) outcome = 'right';
      else outcome = r.context.some((c) => q.answers.some((a) => contains(c.text, a))) ? 'selection_miss' : 'retrieval_miss';
      rows.push({
        question: q.question,
        kind: q.kind,
        answerable: q.answerable,
        right: outcome === 'right',
        answer_itself_right: outcome === 'right' && (!q.answerable || q.answers.some((a) => contains(r.answer, a))),
        strict_right: outcome === 'right' && (!q.answerable || q.kind === 'open' || q.answers.some((a) => contains(r.answer, a))),
        outcome,
        answer: r.answer,
        answer_passage: r.answer_passage,
        sources: r.sources,
        ...(q.source ? { expected_source: q.source } : {}),
        support: (r.guardrails as { support?: unknown }).support ?? null,
      });
    }
    const kinds = [...new Set(rows.map((r) => r.kind))];
    const outcomes: Exclude<Outcome, 'right'>[] = ['retrieval_miss', 'selection_miss', 'false_not_found', 'false_answer'];
    const byKind = Object.fromEntries(
      [...kinds, 'all'].map((kind) => {
        const of = rows.filter((r) => kind === 'all' || r.kind === kind);
        const right = of.filter((r) => r.right).length;
        const counts = Object.fromEntries(outcomes.map((o) => [o, of.filter((r) => r.outcome === o).length])) as Record<Exclude<Outcome, 'right'>, number>;
        const itself = of.filter((r) => r.answer_itself_right).length;
        const strict = of.filter((r) => r.strict_right).length;
        return [
          kind,
          {
            questions: of.length,
            right,
            share_right: round4(right / of.length),
            strict_right: strict,
            share_strict_right: round4(strict / of.length),
            answer_itself_right: itself,
            ...counts,
          },
        ];
      }),
    );
    console.log(`\n| kind | questions | right | share | strictly right | retrieval miss | selection miss | false not-found | false answer |`);
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [kind, k] of Object.entries(byKind))
      console.log(
        `| ${kind} | ${k.questions} | ${k.right} | ${k.share_right.toFixed(3)} | ${k.strict_right} | ${k.retrieval_miss} | ${k.selection_miss} | ${k.false_not_found} | ${k.false_answer} |`,
      );
    console.log(`\nwrote ${writeResults('qa-natural', { questions: questionsPath, docs: docsDir, by_kind: byKind, rows })}`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
