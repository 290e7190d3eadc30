// The word-level helpers of wink-nlp-utils that keyword search and topics use, loaded one by one: the package's index
// also builds a winkNLP pipeline with its English model for functions this service does not use, about 60 MB in every
// thread that imports it (the event loop's and each worker's).
import lowerCase from 'wink-nlp-utils/src/string-lower-case.js';
import stem from 'wink-nlp-utils/src/string-stem.js';
import tokenize0 from 'wink-nlp-utils/src/string-tokenize0.js';
import removeWords from 'wink-nlp-utils/src/tokens-remove-words.js';

export { lowerCase, removeWords, stem, tokenize0 };
