// What the ask pipeline knows of the indexed collection as a whole: its words (for typo fixing) and the document
// frequency of each stem (rarity for the reader, names found nearly everywhere for the support check). Built from the
// chunks in memory and rebuilt only after a re-index (the RAG service's generation changes).
import { bm25Tokens } from '../../search/bm25.js';
import type { RagService } from '../service.js';
import { titleStems } from './passages.js';
import { vocabulary } from './rewrite.js';

/** Share of the collection's chunks from which a name is everywhere there and not required by the support check. */
const EVERYWHERE_SHARE = 0.25;
/**
 * Largest share of the documents whose names may hold a word for that word to name them: "readme" in the names of
 * most files of a folder of READMEs names none of them.
 */
const NAMING_SHARE = 0.25;
/**
 * Least share of the chunks holding a word that must come from the documents it names: "node" of node-cron.txt,
 * a word found all over a folder of Node.js READMEs, does not name node-cron.txt.
 */
const NAMED_HOLD_SHARE = 0.5;

export interface CorpusVocab {
  generation: number;
  /** Word frequencies (lower case), for typo fixing. */
  words: Map<string, number>;
  /** In how many chunks each stem occurs. */
  stemDf: Map<string, number>;
  /** How many chunks there are. */
  docs: number;
  /** The documents whose names (titleStems) hold each stem. */
  titleDocs: Map<string, Set<string>>;
  /** For each stem of a document name: how many chunks hold it, and how many of those are of the documents it names. */
  titleHeld: Map<string, { all: number; own: number }>;
  /** How many documents there are. */
  sources: number;
  /** Each document's heading (documentHeading), where it has one. */
  headings: Map<string, string>;
}

export class CorpusVocabulary {
  private vocab: CorpusVocab | null = null;

  constructor(private readonly rag: Pick<RagService, 'generation' | 'chunks'>) {}

  /** The vocabulary of the chunks in memory, rebuilt when the index's generation changed. */
  current(): CorpusVocab {
    if (!this.vocab || this.vocab.generation !== this.rag.generation) this.vocab = corpusVocab(this.rag.chunks(), this.rag.generation);
    return this.vocab;
  }

  /** Whether the collection holds a name nearly everywhere (in EVERYWHERE_SHARE of its chunks). */
  everywhere(name: string): boolean {
    const { stemDf, docs } = this.current();
    const stems = bm25Tokens(name);
    return stems.length > 0 && stems.every((st) => (stemDf.get(st) ?? 0) >= EVERYWHERE_SHARE * docs);
  }

  /**
   * The documents a question names by a word of their file names ("tinybench: default time per task?" names
   * tinybench-readme.txt, "in the GPL v3" gpl-3.txt): words (not numbers alone) that name at most NAMING_SHARE of the
   * documents and are found mostly in them (NAMED_HOLD_SHARE of the chunks that hold them). Null when the question
   * names none, or when the collection has a single document. The words come back too: the documents named meet
   * them, so the passages need not repeat them.
   */
  namedDocuments(question: string): { sources: Set<string>; stems: Set<string> } | null {
    const { titleDocs, titleHeld, sources } = this.current();
    if (sources < 2) return null;
    const named = new Set<string>();
    const stems = new Set<string>();
    for (const stem of new Set(bm25Tokens(question))) {
      const docs = titleDocs.get(stem);
      if (!docs || /^\d/.test(stem) || docs.size > Math.max(1, NAMING_SHARE * sources)) continue;
      const held = titleHeld.get(stem);
      if (held && held.own < NAMED_HOLD_SHARE * held.all) continue;
      stems.add(stem);
      for (const d of docs) named.add(d);
    }
    return named.size ? { sources: named, stems } : null;
  }

  /** The document's heading: its first line when that is a title (documentHeading). */
  heading(source: string): string | undefined {
    return this.current().headings.get(source);
  }

  /** A stem's rarity in the collection: a smoothed inverse document frequency (rare words say more about where the answer is). */
  rarity(): (stem: string) => number {
    const { stemDf, docs } = this.current();
    return (stem: string) => Math.log(1 + docs / (1 + (stemDf.get(stem) ?? 0)));
  }
}

/** Counts over the chunks: two passes (the documents each name-word names must be known before the chunks are counted). */
function corpusVocab(chunks: ReturnType<RagService['chunks']>, generation: number): CorpusVocab {
  const titleDocs = new Map<string, Set<string>>();
  const texts: string[] = [];
  const sources = new Set<string>();
  const headings = new Map<string, string>();
  for (const c of chunks) {
    texts.push(c.text);
    sources.add(c.source);
    const heading = c.chunk_index === 0 ? documentHeading(c.text) : null;
    if (heading) headings.set(c.source, heading);
    for (const s of titleStems(c.source)) titleDocs.set(s, (titleDocs.get(s) ?? new Set()).add(c.source));
  }
  const stemDf = new Map<string, number>();
  const titleHeld = new Map<string, { all: number; own: number }>();
  for (const c of chunks) {
    for (const s of new Set(bm25Tokens(c.text))) {
      stemDf.set(s, (stemDf.get(s) ?? 0) + 1);
      const named = titleDocs.get(s);
      if (!named) continue;
      const held = titleHeld.get(s) ?? { all: 0, own: 0 };
      held.all++;
      if (named.has(c.source)) held.own++;
      titleHeld.set(s, held);
    }
  }
  return { generation, words: vocabulary(texts), stemDf, docs: texts.length, titleDocs, titleHeld, sources: sources.size, headings };
}

/** Most words a first line may have to be read as the document's title. */
const HEADING_WORDS = 12;

/**
 * A document's title: its first line when that is a short line of words, without Markdown's marks or the full stop
 * that reading adds to a heading ("GNU GENERAL PUBLIC LICENSE", "Reporting Bugs in the GNU Compiler Collection for
 * Debian"); reading joins a Markdown heading to its first paragraph with a colon ("adduser in Debian: The adduser
 * package includes..."), and the title is then what comes before it. Null when the document starts with prose, as
 * most of an encyclopedia or a book do.
 */
export function documentHeading(text: string): string | null {
  const first = text.split('\n').find((l) => /\p{L}/u.test(l));
  if (!first) return null;
  const line = first
    .split(': ')[0]!
    .replace(/\s+/g, ' ')
    .replace(/^[\s#=*_>-]+|[\s#=*_-]+$/g, '')
    .replace(/\.$/, '');
  const words = line.split(' ').filter(Boolean);
  if (!words.length || words.length > HEADING_WORDS || /[.?!:,;]( |$)|[<>[\]()]/.test(line)) return null;
  return line;
}
