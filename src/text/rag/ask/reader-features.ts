// Features of the extractive reader (reader.ts): what a question asks for (reader-question.ts), and how well each
// candidate sentence of the retrieved chunks (sentence-features.ts) and each word span of a sentence
// (span-features.ts) fits it, each feature under its name (features.ts). Training (scripts/train-reader.ts) and serving
// share this code, so the models always see the features the service computes.
export { featureVector } from './features.js';
export { HEAD_KINDS, type QuestionInfo, analyseQuestion, questionHead, whWord } from './reader-question.js';
export { SENTENCE_FEATURES, type SentenceCandidate, type SentenceFeature, type SentenceFeatures, sentenceFeatures } from './sentence-features.js';
export { MAX_SPAN, type SpanCandidate, spanCandidates } from './span-candidates.js';
export { SPAN_FEATURES, type SentenceStanding, type SpanFeature, type SpanFeatures, spanFeatures, spanRows } from './span-features.js';
export { titleStems } from './passages.js';
