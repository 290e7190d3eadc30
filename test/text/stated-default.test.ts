import { describe, expect, it } from 'vitest';
import { termsOf } from '../../src/text/rag/ask/extractive.js';
import { analyseQuestion, loadLearnedReader } from '../../src/text/rag/ask/reader.js';
import { ASKS_DEFAULT, asksDefault, defaultSpan, statedDefault } from '../../src/text/rag/ask/stated-default.js';

const oneChunk = (texts: string[]) => texts.map((text, position) => ({ text, chunkRank: 0, chunkBm25: 1, position }));
const others = [
  { text: 'Logs are written to the journal and rotated weekly.', chunkRank: 1, chunkBm25: 0.8, position: 0 },
  { text: 'Each worker process handles one connection at a time.', chunkRank: 1, chunkBm25: 0.8, position: 1 },
];

describe('questions about a default', () => {
  it('are told from other questions', () => {
    for (const q of [
      "what's the default port?",
      'how often is the cache flushed by default?',
      'which port does it listen on out of the box?',
      'if i dont pass a type what do i get?',
      'what name is returned when no name is given?',
      'what happens when it is not set?',
    ])
      expect(ASKS_DEFAULT.test(q), q).toBe(true);
    for (const q of ['what port does the broker listen on?', 'how do I set the cache size?']) expect(ASKS_DEFAULT.test(q), q).toBe(false);
    // Changing a default is no question about the default itself.
    for (const q of ['which option changes the default port?', 'how do I use a port other than the default one?']) {
      expect(ASKS_DEFAULT.test(q), q).toBe(true);
      expect(asksDefault(q), q).toBe(false);
    }
    expect(asksDefault("what's the default port?")).toBe(true);
  });

  it('find where a sentence states its default', () => {
    const at = (text: string) => {
      const terms = termsOf(text);
      const stated = statedDefault(terms);
      if (!stated) return null;
      return stated.after !== undefined
        ? `after ${terms[stated.after]!.text}`
        : stated.before !== undefined
          ? `before ${terms[stated.before]!.text}`
          : 'anywhere';
    };
    expect(at('Defaults to 1800 seconds (30 minutes).')).toBe('after 1800');
    expect(at('Default: 30.')).toBe('after 30');
    expect(at('The default value is 5432.')).toBe('after 5432');
    expect(at('Default of idle timeout: 0.')).toBe('after 0');
    // The setting named between the marker and its verb.
    expect(at('The default port is 8080.')).toBe('after 8080');
    expect(at('Default buckets of GC duration histogram are [0.001, 0.01, 0.1].')).toBe('after 0.001');
    // A verb past a clause break, or too far on, is another clause's.
    expect(at('The default, as the manual says, is odd.')).toBeNull();
    expect(at('The default way to run the tests on a new machine is make check.')).toBeNull();
    expect(at("The tests run as 'nobody' by default.")).toBe('before by');
    expect(at('By default, the loader looks for a file called .env.')).toBe('anywhere');
    expect(at('The number of seconds to wait between saves.')).toBeNull();
  });

  it('take the span placed after the marker', () => {
    const spans = [
      { from: 0, to: 1, score: 3 },
      { from: 2, to: 4, score: 1 },
      { from: 3, to: 4, score: 2 },
    ];
    expect(defaultSpan({ after: 2 }, spans)).toEqual({ from: 3, to: 4, score: 2 });
    expect(defaultSpan({ before: 1 }, spans)).toEqual({ from: 0, to: 1, score: 3 });
    expect(defaultSpan({ after: 7 }, spans)).toBeNull();
  });

  it('are answered from the default stated a few sentences after the sentence that describes the setting', () => {
    const reader = loadLearnedReader();
    const q = analyseQuestion('how often does the broker save its database to disk by default?', () => 1);
    const describes = 'autosave_interval seconds: The number of seconds that the broker will wait between each time it saves the database to disk.';
    const chunk = [describes, 'A value of 0 turns this off.', 'Defaults to 1800 seconds (30 minutes).'];
    const read = reader.read(q, [...oneChunk(chunk), ...others])!;
    expect(read.answer).toMatch(/^1800 seconds/);
    expect(read.sentence).toBe(chunk.join(' '));
    // The learned decision judges the sentence that describes the setting.
    expect(read.core).toBe(describes);
    // A default further on than DEFAULT_AHEAD sentences is another setting's.
    const far = [describes, 'If set to 0, it only saves on exit.', 'It needs persistence.', 'Saving blocks clients.', 'Defaults to 1800 seconds.'];
    expect(reader.read(q, [...oneChunk(far), ...others])!.answer).not.toMatch(/^1800/);
    // A default stated under another heading is another setting's.
    const sections = ['autosave_interval', 'autosave_interval', 'persistence_interval'];
    const underHeadings = oneChunk(chunk).map((c, i) => ({ ...c, section: sections[i] }));
    expect(reader.read(q, [...underHeadings, ...others])!.answer).not.toMatch(/^1800/);
    const sameSection = oneChunk(chunk).map((c) => ({ ...c, section: 'autosave_interval' }));
    expect(reader.read(q, [...sameSection, ...others])!.answer).toMatch(/^1800 seconds/);
  });
});

describe('a default stated before the description of its setting', () => {
  it('is read when none is stated after it', () => {
    const reader = loadLearnedReader();
    const q = analyseQuestion('after how many characters does the formatter break a line by default?', () => 1);
    const chunk = ['options.columns', 'Type: Number', 'Default: 72', 'The number of characters the formatter puts on a line before it breaks it.'];
    const read = reader.read(q, [...oneChunk(chunk), ...others])!;
    expect(read.answer).toBe('72');
    expect(read.core).toBe(chunk[3]);
    // A default stated after the description is the one read.
    const after = [...chunk, 'Default: 80.'];
    expect(reader.read(q, [...oneChunk(after), ...others])!.answer).toMatch(/^80/);
  });
});

describe('"how" questions read from a sentence that says what happens by default', () => {
  it('go on to the sentence that says how to do otherwise', () => {
    const reader = loadLearnedReader();
    const q = analyseQuestion('how can i stop the proxy from replacing an agent i set myself on a request?', () => 1);
    const states = 'By default, the proxy replaces the agent of every request, even if an agent was set on the request itself.';
    const reason = 'This lets it route requests of libraries that build their own agents.';
    const otherwise = 'This behaviour can be disabled with the PROXY_FORCE=false environment variable.';
    const read = reader.read(q, [...oneChunk([states, reason, otherwise]), ...others])!;
    expect(read.answer).toBe([states, reason, otherwise].join(' '));
    // The learned decision judges the sentence read, without those it goes on to.
    expect(read.core).toBe(states);
    // With no such sentence, nothing is added.
    const unrelated = 'The package is tested on Linux and macOS.';
    expect(reader.read(q, [...oneChunk([states, reason, unrelated]), ...others])!.answer).not.toContain(unrelated);
  });
});
