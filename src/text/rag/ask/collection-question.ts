// Questions about the collection as a whole: "How many documents are in the collection?", "Which files are there?".
// No passage says how many documents a folder holds; the index knows. Such a question is answered from the list of
// indexed documents, with the catalogue's titles where documents.json gives them. Only questions about the whole
// collection are read here: "How many files mention the proxy?" asks what the documents say, and goes to the reader.
import type { DocumentCatalogue } from '../documents.js';

export type CollectionFact = 'count' | 'list';

const DOCS = '(?:documents?|files?|texts?)';
const HOLDER = '(?:collection|folder|directory|index|corpus|library|knowledge base)';
const THE = '(?:the|this|your|my|our)';
const WHERE = `(?: (?:in|within|inside|of) ${THE} ${HOLDER}| (?:indexed|loaded|available|stored))?`;
// The question may go on about the same documents: "How many documents are there, and which software do they cover?"
const END = '(?:,? and (?:which|what|who|how|where|when)\\b.*)?\\s*[?.!]?$';

const PATTERNS: [RegExp, CollectionFact][] = [
  // "How many documents are in the collection?", "how many files are there", "How many documents do you have?"
  [new RegExp(`^how many ${DOCS}(?: (?:are|is)(?: there)?| do (?:you|we|i) have| have you got)?${WHERE}${END}`), 'count'],
  // "How many documents does the collection hold?"
  [new RegExp(`^how many ${DOCS} (?:does|do) ${THE} ${HOLDER} (?:have|hold|contain|include)${END}`), 'count'],
  // "How big is the collection?", "How large is this folder?"
  [new RegExp(`^how (?:big|large) is ${THE} ${HOLDER}${END}`), 'count'],
  // "Which documents are in the collection?", "What files do you have?", "What documents are there?"
  [new RegExp(`^(?:which|what) ${DOCS}(?: (?:are|is)(?: there)?| do (?:you|we|i) have| have you got)${WHERE}${END}`), 'list'],
  // "What does the collection contain?", "What is in the folder?"
  [new RegExp(`^what (?:does|do) ${THE} ${HOLDER} (?:have|hold|contain|include)${END}`), 'list'],
  [new RegExp(`^what(?:'s| is) in ${THE} ${HOLDER}${END}`), 'list'],
  // "List the documents.", "Show me the files in the collection"
  [new RegExp(`^(?:please )?(?:list|show(?: me)?|name) (?:all )?(?:of )?${THE} ${DOCS}${WHERE}${END}`), 'list'],
];

/** The fact about the whole collection that the question asks for, or null for any other question. */
export function collectionQuestion(question: string): CollectionFact | null {
  const q = question.toLowerCase().replace(/[’]/g, "'").replace(/\s+/g, ' ').trim();
  for (const [re, fact] of PATTERNS) if (re.test(q)) return fact;
  return null;
}

/** Documents named at most in an answer; the rest are counted. */
export const LISTED = 20;

/**
 * "3 documents: a.txt; b.txt (its catalogue title); c.txt": every indexed document in name order, named by its file
 * name and, where documents.json gives one, its title; a large collection is counted and its first LISTED named.
 */
export function collectionAnswer(sources: readonly string[], catalogue: DocumentCatalogue | null): string {
  if (!sources.length) return 'The collection holds no documents yet.';
  const names = [...sources]
    .sort((a, b) => a.localeCompare(b))
    .map((s) => {
      const title = catalogue?.get(s)?.title;
      return title ? `${s} (${title})` : s;
    });
  const shown = names.slice(0, LISTED).join('; ');
  const more = names.length > LISTED ? `; and ${names.length - LISTED} more` : '';
  return `${names.length} ${names.length === 1 ? 'document' : 'documents'}: ${shown}${more}`;
}
