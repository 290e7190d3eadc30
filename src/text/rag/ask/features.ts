// Feature records of the learned models: each feature is computed under its name, and a model's input row is built
// from the model's own list of feature names (its ONNX file and model card), never from positions in the code.

/** One indicator per value, named prefix + value: 1 for `chosen`, 0 for the others (all 0 when `chosen` is none of them). */
export function oneHot<P extends string, V extends string>(prefix: P, values: readonly V[], chosen: V | undefined): Record<`${P}${V}`, number> {
  return Object.fromEntries(values.map((v) => [`${prefix}${v}`, Number(v === chosen)])) as Record<`${P}${V}`, number>;
}

/** The same values under prefixed names ("idf_overlap" of a sentence as "sentence_idf_overlap" of its spans). */
export function prefixed<P extends string, N extends string>(prefix: P, record: Readonly<Record<N, number>>, names: readonly N[]): Record<`${P}${N}`, number> {
  return Object.fromEntries(names.map((n) => [`${prefix}${n}`, record[n]])) as Record<`${P}${N}`, number>;
}

/** The input row of a model whose features are `names`: each value looked up by its name (a name not computed is an error). */
export function featureVector(record: Readonly<Record<string, number>>, names: readonly string[]): Float32Array {
  const x = new Float32Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const value = record[names[i]!];
    if (value === undefined) throw new Error(`the reader computes no feature named ${names[i]}`);
    x[i] = value;
  }
  return x;
}

/** Checks a model's feature names against those the code computes: every name must be one of them. */
export function checkFeatureNames(model: string, names: readonly string[], computed: readonly string[]): void {
  const known = new Set(computed);
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new Error(`${model} reads features the service does not compute (${unknown.join(', ')}): retrain it (npm run train:reader)`);
}
