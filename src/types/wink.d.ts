// Minimal types for the wink packages and modules the service uses (they ship none).
declare module 'wink-bm25-text-search' {
  interface Bm25Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number } }): boolean;
    definePrepTasks(tasks: ((input: unknown) => unknown)[], field?: string): number;
    addDoc(doc: Record<string, string>, id: string | number): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): [string, number][];
    exportJSON(): string;
    importJSON(json: string): boolean;
    reset(): boolean;
  }
  const bm25: () => Bm25Engine;
  export default bm25;
}

declare module 'wink-nlp-utils/src/string-lower-case.js' {
  const lowerCase: (s: string) => string;
  export default lowerCase;
}
declare module 'wink-nlp-utils/src/string-tokenize0.js' {
  const tokenize0: (s: string) => string[];
  export default tokenize0;
}
declare module 'wink-nlp-utils/src/tokens-remove-words.js' {
  const removeWords: (tokens: string[]) => string[];
  export default removeWords;
}
declare module 'wink-nlp-utils/src/string-stem.js' {
  const stem: (word: string) => string;
  export default stem;
}
