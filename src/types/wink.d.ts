// Minimal types for the two wink packages the service uses (they ship none).
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

declare module 'wink-nlp-utils' {
  const utils: {
    string: { lowerCase(s: string): string; tokenize0(s: string): string[]; removeExtraSpaces(s: string): string };
    tokens: { removeWords(t: string[]): string[]; stem(t: string[]): string[]; propagateNegations(t: string[]): string[] };
  };
  export default utils;
}
