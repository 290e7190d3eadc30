import { describe, expect, it } from 'vitest';
import { highlight, opensMidSentence } from '../../src/web/ask.js';

describe('the answer marked in its passage on the ask page', () => {
  it('marks the answer where the passage holds it', () => {
    const text = 'The broker starts. Then subscribe to a topic. It prints each message.';
    expect(highlight(text, 'Then subscribe to a topic.')).toEqual({
      before: 'The broker starts. ',
      mark: 'Then subscribe to a topic.',
      after: ' It prints each message.',
    });
  });

  it('finds sentences that the answer joins with a space where the passage breaks the line', () => {
    const text = 'Quick start.\n\nThen use the client to subscribe:\n\n    client_sub -t "a/b" -v\n\nMore below.';
    const parts = highlight(text, 'Then use the client to subscribe: client_sub -t "a/b" -v');
    expect(parts.mark).toBe('Then use the client to subscribe:\n\n    client_sub -t "a/b" -v');
    expect(parts.before + parts.mark + parts.after).toBe(text);
  });

  it('reads the answer as plain text, never as a pattern, and marks nothing it does not find', () => {
    expect(highlight('A cost of $5 (plus tax) [each].', '$5 (plus tax) [each].').mark).toBe('$5 (plus tax) [each].');
    expect(highlight('Nothing here.', 'a.*')).toEqual({ before: 'Nothing here.', mark: '', after: '' });
    expect(highlight('Nothing here.', null).mark).toBe('');
  });

  it('says when a passage opens in the middle of a sentence, so the page can show it after an ellipsis', () => {
    expect(opensMidSentence('pattern): Stability: 1 - Experimental', 3)).toBe(true);
    expect(opensMidSentence('string. Received {}', 4)).toBe(true);
    expect(opensMidSentence(', and then the next clause.', 2)).toBe(true);
    expect(opensMidSentence('The path.parse() method returns an object.', 4)).toBe(false);
    expect(opensMidSentence("// Returns: '../../impl/bbb'", 6)).toBe(false);
    // A document's first part opens the document, whatever its first character.
    expect(opensMidSentence('npm install foo', 0)).toBe(false);
  });
});
