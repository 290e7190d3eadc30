// Step 5, guardrail 2b: the kept passages must contain the question's names, numbers and most of its rare words
// (support.ts). Names and numbers that no kept passage mentions, though other chunks of the collection do, bring the
// best of those chunks in first: a plain search can rank a name's only passage below ones that share the question's
// other words, and only they can hold the answer.
import { bm25Tokens } from '../../../search/bm25.js';
import type { RagService, SearchHit } from '../../service.js';
import type { AskContext } from '../context.js';
import type { CorpusVocabulary } from '../corpus.js';
import type { Lexicon } from '../lexicon.js';
import type { QuestionNlp } from '../question-nlp.js';
import { QuestionSupport } from '../question-support.js';
import { entityStatistics } from '../response.js';
import type { SupportSettings, WordVectorCache } from '../support.js';
import type { AskStep } from './step.js';

/** Passages that join the kept ones for naming what none of those names (the best by the question's words). */
const NAMED_PASSAGES = 2;

export interface SupportOptions {
  rag: Pick<RagService, 'searchHolding'>;
  settings: SupportSettings;
  /** Whether a chunk is relevant enough to join (the relevance step's thresholds). */
  relevant: (h: SearchHit) => boolean;
  lexicon: Lexicon;
  wordVectors: WordVectorCache | undefined;
  corpus: CorpusVocabulary;
  tag: (question: string) => Promise<QuestionNlp>;
}

export class SupportStep implements AskStep {
  readonly name = 'guardrail_support';

  constructor(private readonly o: SupportOptions) {}

  async run(ctx: AskContext): Promise<void> {
    const check = new QuestionSupport({
      original: ctx.original,
      rewritten: ctx.rewritten,
      tagged: ctx.tagged,
      entities: ctx.entities,
      changes: ctx.changes,
      lexicon: this.o.lexicon,
      wordVectors: this.o.wordVectors,
      tag: this.o.tag,
      // The speaker of "What did Bill Clinton say...?", whose documents alone are searched, need not be named in them
      // ("Bill" is in none of the documents of William J. Clinton).
      // Nor need the words by which it names documents ("keyv" of keyv-readme.txt).
      notRequired: (name) => this.o.corpus.everywhere(name) || ctx.speakerNames.has(name.toLowerCase()) || namedBy(name, ctx.namedStems),
      headingOf: (source) => this.o.corpus.heading(source),
    });
    ctx.supportCheck = check;
    if (ctx.kept.length) {
      let support = await ctx.time('guardrail_support', () => check.check(ctx.kept, this.o.settings));
      const unnamed = support.terms.filter((t) => t.kind !== 'word' && !t.found).map((t) => t.text);
      if (!support.passed && unnamed.length && !ctx.speakerDocs && !ctx.namedStems.size) {
        const kept = ctx.kept;
        const named = (await ctx.time('retrieve_names', () => this.o.rag.searchHolding(ctx.rewritten, NAMED_PASSAGES, unnamed))).filter(
          (h) => this.o.relevant(h) && !kept.some((k) => k.id === h.id),
        );
        if (named.length) {
          ctx.kept = [...named, ...kept];
          support = await ctx.time('guardrail_support', () => check.check(ctx.kept, this.o.settings));
          ctx.emit('retrieve_names', { names: unnamed, added: named.length });
        }
      }
      ctx.support = support;
      const summary = { passed: support.passed, missing: support.missing, coverage: support.coverage };
      ctx.guardrails.support = summary;
      ctx.emit('guardrail_support', { ...summary, terms: support.terms });
    }
    ctx.stats = entityStatistics(ctx.entityList, ctx.kept, (source) => ctx.catalogue?.get(source)?.author);
  }
}

/** Whether every stem of a name is one by which the question names documents. */
function namedBy(name: string, stems: ReadonlySet<string>): boolean {
  const own = bm25Tokens(name);
  return stems.size > 0 && own.length > 0 && own.every((s) => stems.has(s));
}
