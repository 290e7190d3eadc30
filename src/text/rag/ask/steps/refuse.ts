// Step 8: "not in the collection" before any answer is made, with the reason: no passage was relevant enough, the
// passages lack the question's key content (and no learned part read them anyway), the catalogue rules the question
// out, or the question asks about the present of a collection of old documents.
import type { AskContext } from '../context.js';
import { DOCUMENTS_NOTE, notFound } from '../response.js';
import type { AskStep } from './step.js';

export class RefuseStep implements AskStep {
  readonly name = 'refuse';

  async run(ctx: AskContext): Promise<void> {
    const { kept, support, gated, notInCatalogue, newest } = ctx;
    if (kept.length && (support?.passed || gated) && !notInCatalogue && !newest) return;
    ctx.response = notFound(
      ctx,
      newest
        ? `The question asks about the present, and the newest document of the collection's catalogue (${DOCUMENTS_NOTE}) is dated ${newest}: the documents cannot say what is current.`
        : notInCatalogue
          ? `No document of the collection's catalogue (${DOCUMENTS_NOTE}) matches ${notInCatalogue.map((m) => `"${m}"`).join(', ')}: the question is not answered from another one.`
          : support
            ? `The retrieved passages do not mention ${support.missing.map((m) => `"${m}"`).join(', ')}: the question is not answered from them.`
            : 'No retrieved passage reached the relevance threshold.',
    );
  }
}
