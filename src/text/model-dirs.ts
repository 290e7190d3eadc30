// Where the shipped text models live. Kept apart from models.ts so that code which only needs a path (the worker
// threads' word table and lexicon) does not load transformers.js and ONNX Runtime, about 170 MB per thread.
export const DEFAULT_TEXT_MODELS = {
  sentiment: 'models/text/sentiment',
  emotion: 'models/text/emotion',
  embedder: 'models/text/embedder',
};
