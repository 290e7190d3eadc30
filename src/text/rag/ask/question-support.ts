// The support check (support.ts) of one question, as the ask pipeline applies it: to the kept passages (the support
// step) and to the windows around the answer's candidate sentences (the answer step). It reads the rewritten
// question, whose nouns are tagged once for both uses ("US" is "United States" there).
import type { Lexicon } from './lexicon.js';
import type { QuestionNlp } from './question-nlp.js';
import type { Change, Entities } from './rewrite.js';
import { type SupportSettings, type SupportVerdict, type WordVectorCache, checkSupport } from './support.js';

export interface QuestionSupportOptions {
  original: string;
  rewritten: string;
  /** The tagger's reading of the original question; the rewritten one is tagged only when it differs. */
  tagged: QuestionNlp;
  entities: Entities;
  changes: Change[];
  lexicon: Lexicon;
  wordVectors: WordVectorCache | undefined;
  tag: (question: string) => Promise<QuestionNlp>;
  /** Names a passage need not hold: found nearly everywhere in the collection, or the speaker whose documents alone are searched. */
  notRequired: (name: string) => boolean;
  /** A document's heading (its first line when that is a title): its words name every passage of it, as its file name's do. */
  headingOf?: (source: string) => string | undefined;
}

/** Abbreviations the rewriting expanded (expansion -> abbreviation), which passages may use either way. */
export const expandedOf = (changes: Change[]) => Object.fromEntries(changes.filter((c) => c.kind === 'abbreviation').map((c) => [c.to, c.from]));

export class QuestionSupport {
  private rewrittenTagged: Promise<Pick<QuestionNlp, 'entities' | 'nouns'>> | undefined;

  constructor(private readonly o: QuestionSupportOptions) {}

  async check(passages: { text: string; source: string; parts?: string[] }[], settings: SupportSettings): Promise<SupportVerdict> {
    const { original, rewritten, tagged, entities } = this.o;
    this.rewrittenTagged ??= rewritten === original ? Promise.resolve(tagged) : this.o.tag(rewritten).then((t) => ({ entities, nouns: t.nouns }));
    return checkSupport(
      rewritten,
      await this.rewrittenTagged,
      this.o.headingOf ? passages.map((p) => ({ ...p, heading: this.o.headingOf!(p.source) })) : passages,
      this.o.lexicon,
      settings,
      this.o.wordVectors,
      expandedOf(this.o.changes),
      this.o.notRequired,
    );
  }
}
