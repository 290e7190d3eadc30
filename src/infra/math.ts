// Small numeric helpers with no dependencies (worker threads import them without the model decoders).

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
