// Step 3: hybrid retrieval of the rewritten question, and with RAG_RERANK the cross-encoder's order over a deeper
// candidate list. A question about one speaker's words ("What did X warn about?") is asked of that speaker's
// documents only, when the documents' catalogue names X as an author; a question that names documents by a word of
// their file names ("keyv: how do I ...?", "in the GPL v3") is asked of those documents only.
import { TextHttpError } from '../../../errors.js';
import type { DocumentCatalogue } from '../../documents.js';
import { RERANK_DEPTH, type RagService, type SearchHit } from '../../service.js';
import type { AskContext } from '../context.js';
import type { CorpusVocabulary } from '../corpus.js';
import { speakerDocuments, speakerWords } from '../document-question.js';
import type { AskStep } from './step.js';

export interface RetrieveOptions {
  rag: Pick<RagService, 'search' | 'searchIn' | 'rerank'>;
  /** Reorder the retrieved passages with the cross-encoder. */
  rerank: boolean;
  /** The documents' authors and dates (DOCS_DIR/documents.json), read once per question. */
  documents?: () => DocumentCatalogue;
  /** The collection's document names, for questions that name documents. */
  corpus?: Pick<CorpusVocabulary, 'namedDocuments'>;
}

export class RetrieveStep implements AskStep {
  readonly name = 'retrieve';

  constructor(private readonly o: RetrieveOptions) {}

  async run(ctx: AskContext): Promise<void> {
    const { original, rewritten } = ctx;
    const { topK } = ctx.request;
    // The documents' catalogue, read once for the whole question (each read checks the file).
    const catalogue = this.o.documents?.() ?? null;
    const speakerDocs = catalogue ? speakerDocuments(original, catalogue) : null;
    ctx.catalogue = catalogue;
    ctx.speakerDocs = speakerDocs;
    ctx.speakerNames = new Set(speakerDocs ? speakerWords(original) : []);
    const named = speakerDocs ? null : (this.o.corpus?.namedDocuments(rewritten) ?? null);
    ctx.namedStems = named?.stems ?? new Set();
    const within = speakerDocs ?? named?.sources ?? null;
    const depth = this.o.rerank ? Math.max(topK, RERANK_DEPTH) : topK;
    const { rag } = this.o;
    let hits = await ctx.time('retrieve', () => (within ? rag.searchIn(rewritten, depth, within) : rag.search(rewritten, depth)));
    const warnings: string[] = [];
    if (this.o.rerank) hits = await ctx.time('rerank', () => this.rerank(rewritten, hits, topK, warnings));
    ctx.hits = hits;
    ctx.warnings.push(...warnings);
    ctx.emit('retrieve', {
      results: hits.length,
      ...(within ? { within: [...within] } : {}),
      ...(this.o.rerank ? { reranked: !warnings.length } : {}),
    });
  }

  /** The cross-encoder's order; when it cannot be loaded (or fails), the hybrid order with a warning, not a failure. */
  private async rerank(query: string, hits: SearchHit[], topK: number, warnings: string[]): Promise<SearchHit[]> {
    try {
      return await this.o.rag.rerank(query, hits, topK);
    } catch (err) {
      // A model's own error text can name files and hosts: only the service's own (safe) messages are shown.
      warnings.push(`The passages were not reranked: ${err instanceof TextHttpError ? err.detail : 'the reranking model failed on this question'}`);
      return hits.slice(0, topK);
    }
  }
}
