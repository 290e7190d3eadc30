// What the ask pipeline knows of the indexed collection as a whole: its words (for typo fixing) and the document
// frequency of each stem (rarity for the reader, names found nearly everywhere for the support check). Built from the
// chunks in memory and rebuilt only after a re-index (the RAG service's generation changes).
import { bm25Tokens } from '../../search/bm25.js';
import type { RagService } from '../service.js';
import { vocabulary } from './rewrite.js';

/** Share of the collection's chunks from which a name is everywhere there and not required by the support check. */
const EVERYWHERE_SHARE = 0.25;

export interface CorpusVocab {
  generation: number;
  /** Word frequencies (lower case), for typo fixing. */
  words: Map<string, number>;
  /** In how many chunks each stem occurs. */
  stemDf: Map<string, number>;
  /** How many chunks there are. */
  docs: number;
}

export class CorpusVocabulary {
  private vocab: CorpusVocab | null = null;

  constructor(private readonly rag: Pick<RagService, 'generation' | 'chunkTexts'>) {}

  /** The vocabulary of the chunks in memory, rebuilt when the index's generation changed. */
  current(): CorpusVocab {
    if (!this.vocab || this.vocab.generation !== this.rag.generation) {
      const texts = this.rag.chunkTexts();
      const stemDf = new Map<string, number>();
      for (const t of texts) for (const s of new Set(bm25Tokens(t))) stemDf.set(s, (stemDf.get(s) ?? 0) + 1);
      this.vocab = { generation: this.rag.generation, words: vocabulary(texts), stemDf, docs: texts.length };
    }
    return this.vocab;
  }

  /** Whether the collection holds a name nearly everywhere (in EVERYWHERE_SHARE of its chunks). */
  everywhere(name: string): boolean {
    const { stemDf, docs } = this.current();
    const stems = bm25Tokens(name);
    return stems.length > 0 && stems.every((st) => (stemDf.get(st) ?? 0) >= EVERYWHERE_SHARE * docs);
  }

  /** A stem's rarity in the collection: a smoothed inverse document frequency (rare words say more about where the answer is). */
  rarity(): (stem: string) => number {
    const { stemDf, docs } = this.current();
    return (stem: string) => Math.log(1 + docs / (1 + (stemDf.get(stem) ?? 0)));
  }
}
