// Step 6: a question about the documents themselves ("Who gave the 1941 address?") is answered from the documents'
// catalogue (document-question.ts): the entry its year or name picks out, or that of the best passage when its topic
// is supported there. A question about the whole collection ("How many documents are there?") is answered from the
// index's list of documents, unless a catalogue covers them all. A question the catalogue rules out (a year or a name
// no entry has, a speaker none of whose words it holds, the present asked of old documents) is marked for the refusal
// step.
import type { DocumentCatalogue } from '../../documents.js';
import { collectionAnswer, collectionQuestion } from '../collection-question.js';
import { confidenceOf } from '../confidence.js';
import { ASK_WARNINGS } from '../../ask-schema.js';
import type { AskContext } from '../context.js';
import { type DocumentAnswer, type DocumentFact, answerFromCatalogue, documentQuestion, outdatedFor, saidTopic, speakerMissing } from '../document-question.js';
import type { PassageReader, PassageReading } from '../read-passages.js';
import { type AskResponse, DOCUMENTS_NOTE, responseOf } from '../response.js';
import type { AskStep } from './step.js';

export class CatalogueStep implements AskStep {
  readonly name = 'catalogue';

  /** `indexed` lists the indexed documents' names (from RagService.stats). */
  constructor(
    private readonly reader: PassageReader,
    private readonly indexed: () => Promise<string[]>,
  ) {}

  async run(ctx: AskContext): Promise<void> {
    const { catalogue, original } = ctx;
    const fact = catalogue ? documentQuestion(original, catalogue) : null;
    if (collectionQuestion(original) && (await this.fromIndex(ctx, fact !== null))) return;
    // "What did John F. Kennedy say ...?" of a collection with no document by Kennedy: a passage that names him
    // ("the vision of John F. Kennedy") is not his words.
    const speaker = !fact && catalogue && !ctx.speakerDocs ? speakerMissing(original, ctx.entities.people, catalogue) : null;
    if (speaker) {
      ctx.notInCatalogue = [speaker];
      ctx.guardrails.catalogue = { fact: 'speaker', passed: false, missing: [speaker] };
    }
    // "Who is the current holder of the role?" of a collection whose newest document is years old.
    const newest = !fact && !speaker && catalogue ? outdatedFor(original, catalogue) : null;
    if (newest) {
      ctx.newest = newest;
      ctx.guardrails.catalogue = { fact: 'present', passed: false, newest };
    }
    if (fact && catalogue) await this.fromCatalogue(ctx, fact, catalogue);
  }

  /**
   * "How many documents are in the collection?" from the index, unless the catalogue has an entry for every indexed
   * document and reads the question (`catalogueReads`: it then answers, with authors and dates). False when the
   * catalogue should answer.
   */
  private async fromIndex(ctx: AskContext, catalogueReads: boolean): Promise<boolean> {
    const sources = await ctx.time('catalogue', () => this.indexed());
    const { catalogue } = ctx;
    // The catalogue answers what it reads ("How many documents are there?", with authors and dates); a list it does not
    // read ("Which files do you have?") is the index's.
    if (catalogueReads && catalogue?.size && sources.every((s) => catalogue.has(s))) return false;
    const answer = collectionAnswer(sources, catalogue);
    // The passages retrieved for the question's words say nothing about the collection: none is shown as evidence.
    ctx.kept = [];
    ctx.guardrails.catalogue = { fact: 'collection', passed: true, documents: sources.length };
    ctx.emit('catalogue', ctx.guardrails.catalogue as Record<string, unknown>);
    await ctx.request.onToken?.(answer);
    ctx.response = responseOf(ctx, {
      answer,
      passage: null,
      answerType: 'factoid',
      llm: false,
      grounding: null,
      guardrails: { ...ctx.guardrails, grounding: { applicable: false, reason: 'answer from the list of indexed documents' } },
      sources,
      // The index states the fact: no passage's similarity says how sure it is.
      confidence: {
        ...confidenceOf([], 1),
        score: 1,
        level: 'high',
        explanation: 'High confidence (1.00): the documents are counted and named from the index.',
      },
      warnings: [...ctx.warnings, ASK_WARNINGS.fromIndex],
    });
    return true;
  }

  private async fromCatalogue(ctx: AskContext, fact: DocumentFact, catalogue: DocumentCatalogue): Promise<void> {
    const { original, kept } = ctx;
    const sources = [...new Set(kept.map((h) => h.source))];
    let found = answerFromCatalogue(original, fact, catalogue, sources);
    let read: PassageReading | null = null;
    if (found && !('missing' in found) && found.by === 'retrieval') {
      // "Which <role> talked about the highways?": the document whose sentence the reader picks.
      read = ctx.support?.passed ? await ctx.time('answer', () => this.reader.read(saidTopic(original, catalogue) ?? original, 'open', kept)) : null;
      found = read?.passage ? answerFromCatalogue(original, fact, catalogue, [read.passage.source, ...sources]) : null;
    }
    if (found && 'missing' in found) {
      ctx.notInCatalogue = found.missing;
      ctx.guardrails.catalogue = { fact, passed: false, missing: found.missing };
    } else if (found) {
      ctx.guardrails.catalogue = { fact, passed: true, source: found.source, matched_by: found.by };
      ctx.emit('catalogue', ctx.guardrails.catalogue as Record<string, unknown>);
      ctx.response = await this.answer(ctx, found, read);
    }
  }

  /**
   * The answer to a question about a document: the catalogue's author or date, shown with the sentence that picked the
   * document (`picked`, a question answered through the passages), or else the document's best passage for the
   * question, as evidence.
   */
  private async answer(ctx: AskContext, found: DocumentAnswer, picked: PassageReading | null): Promise<AskResponse> {
    const read =
      picked?.passage.source === found.source
        ? picked
        : await ctx.time('answer', async () => this.reader.documentPassage(ctx.original, found.source, ctx.kept));
    await ctx.request.onToken?.(found.answer);
    const who = found.meta.title ? ` (${found.meta.title})` : '';
    const confidence = await ctx.time('confidence', () =>
      confidenceOf(
        ctx.kept.map((h) => h.semantic_score),
        1,
        // The catalogue states the fact; a document found through the best passage is as sure as that passage.
        found.by === 'retrieval' ? (read?.support ?? 0) : 1,
      ),
    );
    return responseOf(ctx, {
      answer: found.answer,
      passage: read?.passage ?? null,
      answerType: 'factoid',
      llm: false,
      grounding: null,
      guardrails: { ...ctx.guardrails, grounding: { applicable: false, reason: `answer from ${DOCUMENTS_NOTE}` } },
      ...(found.sources ? { sources: found.sources } : {}),
      confidence,
      warnings: [
        ...ctx.warnings,
        `The answer comes from the collection's catalogue of documents (${DOCUMENTS_NOTE}): ${found.sources ? found.sources.join(', ') : `${found.source}${who}`}.`,
      ],
    });
  }
}
