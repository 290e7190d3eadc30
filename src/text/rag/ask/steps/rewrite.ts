// Step 2: the question rewritten for retrieval (abbreviations expanded, typos fixed against the collection's words,
// with RAG_LLM_REWRITE an LLM's one-line query) and tagged (its entities, the answer type it wants, its nouns).
import type { Llm } from '../../../llm/llm.js';
import type { AskContext } from '../context.js';
import type { CorpusVocabulary } from '../corpus.js';
import type { Lexicon } from '../lexicon.js';
import type { QuestionNlp } from '../question-nlp.js';
import { type Change, expandAbbreviations, fixTypos } from '../rewrite.js';
import type { AskStep } from './step.js';

export interface RewriteOptions {
  llm: Llm;
  abbreviations: Record<string, string>;
  /** Let the LLM rewrite the question (discarded when it drifts). */
  llmRewrite: boolean;
  lexicon: Lexicon;
  corpus: CorpusVocabulary;
  tag: (question: string) => Promise<QuestionNlp>;
}

export class RewriteStep implements AskStep {
  readonly name = 'rewrite';

  constructor(private readonly o: RewriteOptions) {}

  async run(ctx: AskContext): Promise<void> {
    const { rewritten, changes, tagged } = await ctx.time('rewrite', () => this.rewrite(ctx.original, ctx.request.signal));
    ctx.rewritten = rewritten;
    ctx.changes = changes;
    ctx.tagged = tagged;
    ctx.entities = tagged.entities;
    ctx.emit('rewrite', { original: ctx.original, rewritten, changes, entities: tagged.entities });
  }

  private async rewrite(original: string, signal: AbortSignal | undefined) {
    const tagged = await this.o.tag(original);
    const entities = tagged.entities;
    const abbr = expandAbbreviations(original, this.o.abbreviations);
    const properNouns = [entities.people, entities.places, entities.organizations].flat();
    const typos = fixTypos(abbr.text, this.o.corpus.current().words, { lexicon: this.o.lexicon, properNouns });
    const changes: Change[] = [...abbr.changes, ...typos.changes];
    let text = typos.text;
    if (this.o.llmRewrite && this.o.llm.available) {
      const r = await this.o.llm.generate(`Rewrite this question as one clear search query. Answer with the query only.\n\n${text}`, {
        purpose: 'rewrite',
        timeoutMs: 5000,
        signal,
      });
      // Drift check: a rewrite much longer than the question is discarded.
      if (r.ok && r.text.length <= text.length * 5 && r.text.length > 2) {
        changes.push({ from: text, to: r.text, kind: 'llm' });
        text = r.text;
      }
    }
    return { rewritten: text, changes, tagged };
  }
}
