import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { rng } from '../../src/infra/rng.js';
import { compactEnsemble, ensembleFromOnnx, predictCompact, predictCompactMany, predictRaw } from '../../src/infra/tree-ensemble.js';
import { answerType } from '../../src/text/rag/ask/answer-type.js';
import { TYPED, fit, render, termsOf } from '../../src/text/rag/ask/extractive.js';
import { checkFeatureNames, featureVector } from '../../src/text/rag/ask/features.js';
import {
  SENTENCE_FEATURES,
  SPAN_FEATURES,
  analyseQuestion,
  asksQuestion,
  loadLearnedReader,
  sentenceFeatures,
  spanCandidates,
  spanFeatures,
  spanRows,
  closeQuote,
  wholeName,
  titleStems,
} from '../../src/text/rag/ask/reader.js';

describe('answer type of a question', () => {
  it.each([
    ['who', 'Who founded the first normal school?'],
    ['whom', 'To whom did the king give the land?'],
    ['when', 'When did the navy build the ships?'],
    ['where', 'Where did the fleet sail in 1862?'],
    ['how many', 'How many workers built the canal?'],
    ['how much', 'How much did the bridge cost?'],
    ['how long', 'How long did the war last?'],
    ['how + adjective (a degree)', 'How popular was the show in the late 1980s?'],
    ['how + adjective (a degree)', 'How successful was the first attack?'],
    ['how + adverb (a degree)', 'How recently have the homes been restored?'],
    ['which X', 'Which company operated the canal?'],
    ['what year', 'In what year did the canal open?'],
    ['what did X (action)', 'What did Lyndon Johnson declare war on?'],
    ['what did X (action)', 'What did the treaty abolish?'],
    ['what is', 'What is the largest city in Ohio?'],
    ['what is (an attribute)', 'What was the average family size?'],
    ['what is (an attribute, no modifier)', 'What is the capital?'],
    ['what is (one of several)', 'What is the largest city?'],
    ['what is (one of several)', 'What was the first treaty?'],
    ['what is (one of several: a default)', 'What is the default idle timeout?'],
    ['what is (one of several: a maximum)', 'What is the maximum charging current?'],
    ['what was X called', 'What was the naval base called?'],
    ['what is X made of', 'What is the parliamentary mace made of?'],
    ['what is the X of Y', 'What is the basis of the hymn?'],
    ['what is the X of Y', 'What is the capital of France?'],
    ['name', 'Name the general who commanded the fleet.'],
    ['what did X think + clause', 'What did Luther think was the only source of knowledge of God?'],
    ['what did X believe that + clause', 'What did Luther believe that the soul does after death?'],
    ['what does X want to + verb', 'What does the UN want to stabilize?'],
    ['what is the X for Y (not a use)', 'What is the penalty for late filing?'],
    ['what did X vote for', 'What did the committee vote for?'],
    ['a choice between named options', 'Was the station assembled on the ground or in orbit?'],
    ['a clause joined by "and" that is not a question of its own', 'What grows and is eaten in winter?'],
    ['"when" asking for a time, then a second question', 'When did the war start, and who won?'],
    ['a wh-question after a clause', 'Before the formation of which planet, did the sun lose its oxygen?'],
    ['a wh-question with a clause inside', 'How many problems, once thought hard, did the paper address?'],
    ['an occupation', 'What did her father do for a living?'],
    ['who, with "allowed to"', 'Who is allowed to publish new versions of the licence?'],
  ])('factoid: %s ("%s")', (_, q) => expect(answerType(q)).toBe('factoid'));

  it.each([
    ['why', 'Why did Roosevelt ask Congress to declare war?'],
    ['how (manner)', 'How did the president plan to end poverty?'],
    ['how (process)', 'How does the tariff protect farmers?'],
    ['how else (manner)', 'How else might a physician take advantage of self-interest?'],
    ['how exactly (manner)', 'How exactly did the plan work?'],
    ['describe', 'Describe the Great Society programme.'],
    ['explain', 'Explain the purpose of the Marshall Plan.'],
    ['what did X say about Y', 'What did Obama say about health insurance?'],
    ['what did X propose', 'What did Kennedy propose for the space programme?'],
    ['what did X warn about', 'What did Eisenhower warn about in his farewell address?'],
    ['X said about', 'What has the president argued about taxes?'],
    ['views', "What was Lincoln's position on slavery?"],
    ['effects', 'What were the effects of the New Deal?'],
    ['tell me about', 'Tell me about the Louisiana Purchase.'],
    ['what did X say to Y', 'What did Roosevelt say to Congress?'],
    ['what did X say in Y', 'What did Lincoln say in his second annual message?'],
    ['what did X think of Y', 'What did Luther think of Purgatory?'],
    ['what does X want to do about Y', 'What does Obama want to do about clean energy?'],
    ['what did X plan to do with Y', 'What did Johnson plan to do with the surplus?'],
    ['what is (a name)', 'What is the Monroe Doctrine?'],
    ['what was (a name)', 'What was Nicholas Storch?'],
    ['what is (a thing named by common words)', 'What is the homestead law?'],
    ['what was (a thing named by common words)', 'What was the gold standard?'],
    ['what is (a quoted term)', "What is 'grey literature'?"],
    ['what are the N Xs (a numbered set)', 'What are the four freedoms?'],
    ['what are the N Xs someone named (a numbered set)', 'What are the four freedoms Roosevelt described?'],
    ['what is X for (a use)', 'what is the timetest script mainly for?'],
    ['what is X used for (a use)', 'What is the relay used for?'],
    ['what does X do (a function)', 'what does the update tool do'],
    ['what can X be used for (a use)', 'What can the library be used for?'],
    ['yes or no', 'Can I sell copies of the program?'],
    ['yes or no, then a second question', 'Is the numbering the same as in the other tool? What differs?'],
    ['yes or no after a condition', 'If I run the program only on my own server, does that count as distributing it?'],
    ['yes or no after a statement', 'We ship a device with the firmware. Do we have to give buyers the keys?'],
    ['what happens', 'What happens if a court finds the waiver invalid?'],
    ['what becomes of X', 'what becomes of the house at the end of the book'],
    ['what is X supposed to do', 'When I modify the document, what am I supposed to do with its notes section?'],
    ['yes or no after where to look', 'in the library faq, is it thread safe?'],
    ['how, after where to look', 'With the logging package, how do I send one namespace to stdout?'],
    ['what did X do to Y', 'What did the manager do to the team that made them leave?'],
    ["what's the point (a contraction)", "What's the point he is making with the story?"],
    ['what is the difference', "what's the difference between the posix and right versions of the time zone data?"],
    ['what is the difference, typed without the apostrophe', 'whats the difference between the two builds'],
    ['what are the advantages', 'What are the advantages of the static build?'],
  ])('open: %s ("%s")', (_, q) => expect(answerType(q)).toBe('open'));

  it.each([
    ['who, after a time set before it', 'In 1990, who led the party?'],
    ['which, after where to look', 'In the user guide, which port does the server listen on?'],
  ])('factoid after a time or place set before it: %s ("%s")', (_, q) => expect(answerType(q)).toBe('factoid'));

  it.each([
    ['the N Xs of Y', 'What were the two forms of environmental determinism?'],
    ['the N Xs for Y', 'What are the two ABC affiliates for Grand Rapids Michigan?'],
  ])('factoid, not a numbered set listed one by one: %s ("%s")', (_, q) => expect(answerType(q)).toBe('factoid'));
});

describe('words of a sentence', () => {
  it('renders a span as the sentence writes it, contractions and ranges included', () => {
    const terms = termsOf("The companies weathered the recession, and they're ready to grow. It's 24–10 now.");
    expect(render(terms, { from: 0, to: terms.length })).toBe("The companies weathered the recession, and they're ready to grow. It's 24–10 now");
    const at = terms.findIndex((t) => t.text === "they're");
    expect(render(terms, { from: at, to: at + 3 })).toBe("they're ready to");
  });

  it.each([
    ['Modules go in the directory /usr/lib/python3/dist-packages.', '/usr/lib/python3/dist-packages'],
    ['Every command needs -P or --prefix=<prefix> first.', '--prefix=<prefix>'],
    ['Edit ~/.bashrc to set it.', '~/.bashrc'],
    ['The flag (-v) prints more.', '-v'],
    ["With the '-r' option the shell is restricted.", '-r'],
    ['Pass `-r` to recurse.', '-r'],
    ['Either "-H" or "-S" sets one limit.', '-S'],
    ['He called it "Project Blue" in 1952.', 'Project Blue'],
    ['It was *Project Blue* all along.', 'Project Blue'],
  ])('keeps the symbols that belong to a first word, not quotes, brackets or emphasis: %s', (sentence, span) => {
    const terms = termsOf(sentence);
    const words = span.split(' ');
    const last = words[words.length - 1]!.replace(/^[-/~.<]+|[>]+$/g, '');
    const first = words[0]!.replace(/^[-/~.<]+/, '').split(/[/=.]/)[0]!;
    const from = terms.findIndex((t) => t.text.startsWith(first));
    const to = terms.findIndex((t, i) => i >= from && t.text.endsWith(last)) + 1;
    expect(render(terms, { from, to })).toBe(span);
  });

  it.each([
    ['See apt-secure(8) for details.', 'apt', 'secure(8', 'apt-secure(8)'],
    ['The default is maxSize (1MB), as documented.', 'maxSize', '1MB', 'maxSize (1MB)'],
    ['It returns [a, b] arrays.', 'a', 'b', 'a, b'],
    ['Call logger.flush() before exit.', 'logger.flush', 'logger.flush', 'logger.flush()'],
    ['The flag (-v) prints more.', 'v', 'v', '-v'],
  ])('closes a bracket the span opens, and keeps a call\'s "()": %s', (sentence, first, last, span) => {
    const terms = termsOf(sentence);
    const from = terms.findIndex((t) => t.text === first);
    const to = terms.findIndex((t, i) => i >= from && t.text === last) + 1;
    expect(render(terms, { from, to })).toBe(span);
  });
});

describe('where: a place, or a path or an address', () => {
  it('fits a file path, a dotfile, a relative path and a web address to a "where" question, not a slashed word', () => {
    const terms = termsOf(
      'Install a startup file (/usr/local/etc/wgetrc by default), edit ~/.sh_history, run ./configure, see https://example.org/docs and/or TCP/IP.',
    );
    const fits = (text: string) =>
      fit(
        terms.find((t) => t.text.includes(text))!,
        TYPED.place,
      );
    expect(['wgetrc', 'sh_history', 'configure', 'example.org'].map(fits)).toEqual([1, 1, 1, 1]);
    expect(['and/or', 'TCP/IP', 'startup'].map(fits)).toEqual([0, 0, 0]);
  });
});

describe('reader features, on hand-made sentences', () => {
  // Question stems: navi, build, ironclad, ship; rarities chosen by hand (total 8).
  const rarities: Record<string, number> = { navi: 1, build: 2, ironclad: 4, ship: 1 };
  const q = analyseQuestion('When did the navy build ironclad ships?', (s) => rarities[s] ?? 0);
  const [a, b] = sentenceFeatures(q, [
    { text: 'The navy built three ironclad ships in 1862.', chunkRank: 0, chunkBm25: 1, position: 0 },
    { text: 'Rain fell on the navy yard.', chunkRank: 0, chunkBm25: 1, position: 1 },
  ]);

  it('weighs the question words a sentence shares by their rarity, and counts shared bigrams', () => {
    // "built" does not stem to "build": the first sentence shares navi (1), ironclad (4) and ship (1) of 8.
    expect(a!.idf_overlap).toBeCloseTo(6 / 8, 6);
    expect(a!.word_overlap).toBeCloseTo(3 / 4, 6);
    // Question bigrams: navi build, build ironclad, ironclad ship; the sentence has "ironclad ship".
    expect(a!.bigram_overlap).toBeCloseTo(1 / 3, 6);
    expect(b!.idf_overlap).toBeCloseTo(1 / 8, 6);
    expect(b!.idf_relative).toBeCloseTo(1 / 8 / (6 / 8), 5);
    expect([a!.idf_rank, b!.idf_rank]).toEqual([0, 1]);
  });

  it('scores BM25 with the rarities as IDF and the candidates’ mean length', () => {
    // Content lengths 6 and 4, mean 5; each matched word has tf 1: w * 2.2 / (1 + 1.2 * (0.25 + 0.75 * len / 5)).
    const bm25a = (6 * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 6) / 5));
    const bm25b = (1 * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 4) / 5));
    expect(a!.bm25).toBeCloseTo(bm25a, 4);
    expect(b!.bm25).toBeCloseTo(bm25b, 4);
    expect(b!.bm25_relative).toBeCloseTo(bm25b / bm25a, 4);
  });

  it('measures how close together the shared words are, the answer type present, and the neighbours', () => {
    // navi, ironclad, ship at content positions 0, 3 and 4: three words in a window of five.
    expect(a!.proximity).toBeCloseTo(3 / 5, 6);
    expect(b!.proximity).toBe(1);
    // A "when" question wants a date: the first sentence has a year, the second none.
    expect([a!.type_present, b!.type_present, a!.question_date]).toEqual([1, 0, 1]);
    expect(a!.neighbour_idf).toBeCloseTo(1 / 8, 6);
    expect(b!.neighbour_idf).toBeCloseTo(6 / 8, 6);
  });

  it('describes a span by its length, type fit and distance to the question words', () => {
    const who = analyseQuestion('Who founded the normal school?', () => 1);
    const terms = termsOf('Horace Mann founded the first normal school in Massachusetts.');
    const spans = spanCandidates(terms, who);
    const texts = spans.map((s) => s.text);
    expect(texts).toContain('Horace Mann');
    expect(texts).toContain('Massachusetts');
    // No span starts or ends with a determiner or preposition, and none is made of question words only.
    expect(texts.some((t) => /^(the|in)\b|\b(the|in)$/.test(t))).toBe(false);
    expect(texts).not.toContain('normal school');
    // Nor of question words and stop words ("Monroe Doctrine is" for "What is the Monroe Doctrine?").
    const what = analyseQuestion('What is the Monroe Doctrine?', () => 1);
    const doctrine = spanCandidates(termsOf('The Monroe Doctrine is a principle of American policy.'), what).map((s) => s.text);
    expect(doctrine).not.toContain('Monroe Doctrine is');
    expect(doctrine).toContain('principle of American policy');
    // A function word that the tagger reads as a name for its capital letter (after a heading's colon) is no edge.
    const which = analyseQuestion('Which file should I attach to a solver bug report?', () => 1);
    const after = spanCandidates(termsOf('Using different state files: If a solver bug is reported, ask for the status file.'), which);
    expect(after.map((s) => s.text).filter((t) => /^If\b/.test(t))).toEqual([]);
    expect(after.map((s) => s.text)).toContain('status file');
    // A sentence's first word alone is no answer when it is a gerund heading the subject; a gerund inside is.
    const allocator = analyseQuestion('What memory allocator does it use by default?', () => 1);
    for (const text of [
      'Selecting a non-default memory allocator is done by setting MALLOC.',
      'Allocator: Selecting a non-default one is done by setting MALLOC.',
    ]) {
      const selecting = spanCandidates(termsOf(text), allocator).map((s) => s.text);
      expect(selecting).not.toContain('Selecting');
      expect(selecting).toContain('MALLOC');
    }
    // No span lies in a heading that opens the sentence; a list item's key, and words before a clause's colon, stay.
    const systems = analyseQuestion('which systems is the bug address for?', () => 1);
    const heading = spanCandidates(termsOf('BUG REPORTS AND FIXES (Un*x systems): Please send reports to bug-grep@gnu.org.'), systems);
    expect(heading.map((s) => s.text).filter((t) => /Un\*x|systems|FIXES/.test(t))).toEqual([]);
    expect(heading.map((s) => s.text)).toContain('bug-grep@gnu.org');
    const port = analyseQuestion('which port does the distribution use?', () => 1);
    expect(spanCandidates(termsOf('- 25672: RabbitMQ distribution port'), port).map((s) => s.text)).toContain('25672');
    const snappy = analyseQuestion('which support can I disable?', () => 1);
    const prose = spanCandidates(termsOf('You can also disable support for some compression libraries: $ cmake -DDEACTIVATE_SNAPPY=ON ..'), snappy);
    expect(prose.map((s) => s.text)).toContain('compression libraries');
    const cities = analyseQuestion('how many cities are listed?', () => 1);
    expect(spanCandidates(termsOf('The three largest cities are: Paris, Lyon.'), cities).map((s) => s.text)).toContain('three');
    const monks = analyseQuestion('What tradition were the monks known for?', () => 1);
    expect(spanCandidates(termsOf('The monks were known for singing.'), monks).map((s) => s.text)).toContain('singing');
    // A Texinfo cross-reference's node name is markup, no answer; the option before it is one.
    const option = analyseQuestion('Which configure option makes it conformant by default?', () => 1);
    const reference = spanCandidates(termsOf("Specify '--enable-strict-default' to 'configure' (*note Optional Features::)."), option).map((s) => s.text);
    expect(reference.filter((t) => /Optional|Features|note/.test(t))).toEqual([]);
    expect(reference).toContain('--enable-strict-default');
    // A path with a hyphen is one answer, never a part of it; a hyphenated word may still be cut ("Paris-based").
    const where = analyseQuestion('Where are the json files stored?', () => 1);
    const stored = spanCandidates(termsOf('The files are stored in "/usr/share/iso-codes/json" by Paris-based staff.'), where).map((s) => s.text);
    expect(stored).toContain('/usr/share/iso-codes/json');
    expect(stored.filter((t) => /iso$|^codes/.test(t))).toEqual([]);
    expect(stored).toContain('Paris');
    // Nor does a span start inside a hyphenated word: "base" of "perl-base" is no package.
    const pkg = analyseQuestion('Which package provides the binary?', () => 1);
    const base = spanCandidates(termsOf('The perl-base package provides the binary.'), pkg).map((s) => s.text);
    expect(base).toContain('perl-base');
    expect(base.filter((t) => /^base/.test(t))).toEqual([]);
    // A file name whose first part is a question word ("build.sh" for "... to build it?") is still an answer.
    const script = analyseQuestion('Which shell script can I use to build the program?', () => 1);
    const named = spanCandidates(termsOf("You can use the shell script 'build.sh' instead."), script).map((s) => s.text);
    expect(named).toContain('build.sh');
    const sentence = sentenceFeatures(who, [
      { text: 'Horace Mann founded the first normal school in Massachusetts.', chunkRank: 0, chunkBm25: 1, position: 0 },
    ])[0]!;
    const f = spanFeatures(terms, [spans.find((s) => s.text === 'Horace Mann')!], who, sentence, { score: 1.5, rank: 1, gap: 0.25 })[0]!;
    const x = (name: (typeof SPAN_FEATURES)[number]) => f[name];
    expect(x('length')).toBe(2);
    expect(x('question_word_share')).toBe(0);
    expect(x('type_fit_max')).toBe(1); // tagged Person, which a "who" question wants
    // Question words at term positions 2 (founded), 5 (normal), 6 (school): distances 1, 4 and 5 after the span.
    expect(x('near_question_words')).toBeCloseTo((1 / 2 + 1 / 5 + 1 / 6) / 3, 5);
    expect([x('min_distance'), x('right_distance'), x('left_distance')]).toEqual([1, 1, 30]);
    expect(x('proper_share')).toBe(1);
    // Its sentence shares all three question words, each of rarity 1.
    expect(x('sentence_idf_overlap')).toBe(1);
    // The sentence's standing among the candidates is passed through.
    expect([x('sentence_score'), x('sentence_rank'), x('sentence_gap')]).toEqual([1.5, 1, 0.25]);
  });
});

describe('span rows', () => {
  it("are the span features' records in the order of the model's names, whatever that order", () => {
    const q = analyseQuestion('Which river did the Romans cross in 49 BC?', () => 1);
    const sentence = 'In 49 BC, Caesar led a single legion across the Rubicon, a shallow river in northern Italy.';
    const terms = termsOf(sentence);
    const spans = spanCandidates(terms, q);
    const sf = sentenceFeatures(q, [{ text: sentence, chunkRank: 0, chunkBm25: 1, position: 0 }])[0]!;
    const standing = { score: 0.7, rank: 1, gap: 0.2 };
    const names = [...SPAN_FEATURES].sort();
    const rows = spanRows(terms, spans, q, sf, standing, names);
    const records = spanFeatures(terms, spans, q, sf, standing);
    expect(spans.length).toBeGreaterThan(10);
    expect(rows).toEqual(records.map((r) => featureVector(r, names)));
    expect(() => spanRows(terms, spans, q, sf, standing, [...names, 'no_such_feature'])).toThrow(/does not compute \(no_such_feature\)/);
  });
});

describe('alignment of the question with a sentence (hand-made)', () => {
  const spanFeature = (question: string, sentence: string, name: (typeof SPAN_FEATURES)[number]) => {
    const q = analyseQuestion(question, () => 1);
    const terms = termsOf(sentence);
    const spans = spanCandidates(terms, q);
    const sf = sentenceFeatures(q, [{ text: sentence, chunkRank: 0, chunkBm25: 1, position: 0 }])[0]!;
    const xs = spanFeatures(terms, spans, q, sf, { score: 0, rank: 0, gap: 0 });
    return Object.fromEntries(spans.map((s, k) => [s.text, xs[k]![name]]));
  };

  it('marks a span that follows the preposition a question ends with, after the word before it ("war on?")', () => {
    const f = spanFeature('What did Johnson declare war on?', 'The president declared war on poverty in America.', 'after_final_preposition');
    expect(f.poverty).toBe(1);
    expect(f.America).toBe(0);
  });

  it("finds the question's words before its wh-phrase just before the span ('reported to who?')", () => {
    const f = spanFeature('The directors reported to who?', 'The directors of the centres effectively reported to Mueller.', 'nearest_left_next_to');
    expect(f.Mueller).toBe(1);
    expect(f.centres).toBe(0);
  });

  it("finds the words after the wh-phrase just after the span ('which team won the cup?')", () => {
    const f = spanFeature('Which team won the cup in 1966?', 'England won the cup in 1966 at Wembley.', 'nearest_right_next_to');
    expect(f.England).toBe(1);
    expect(f.Wembley).toBe(0);
  });
});

describe('the shipped reader', () => {
  const reader = loadLearnedReader();
  /** Candidate sentences of one chunk, in order. */
  const oneChunk = (texts: string[]) => texts.map((text, position) => ({ text, chunkRank: 0, chunkBm25: 1, position }));
  /** Two sentences that follow each other in the text but lie in different chunks. */
  const twoChunks = (first: string, second: string) => [
    { text: first, chunkRank: 0, chunkBm25: 1, position: 1 },
    { text: second, chunkRank: 1, chunkBm25: 1, position: 2 },
  ];

  it('scores rows in its flat typed-array form exactly as the tree objects do', () => {
    const rand = rng(11);
    for (const file of ['sentence.onnx', 'span.onnx']) {
      const { model } = ensembleFromOnnx(new Uint8Array(readFileSync(fromRoot(`models/text/reader/${file}`))));
      const compact = compactEnsemble(model);
      const rows: Float32Array[] = [];
      for (let k = 0; k < 500; k++) {
        // Feature values on the scale of the real ones (shares, counts, ranks), and some exactly on thresholds.
        const x = Float32Array.from({ length: model.nFeatures }, () => (rand() < 0.5 ? rand() : Math.floor(rand() * 12)));
        expect(predictCompact(compact, x)).toBe(predictRaw(model, x));
        rows.push(x);
      }
      // Many rows at once, tree by tree: the same numbers.
      expect([...predictCompactMany(compact, rows)]).toEqual(rows.map((x) => predictRaw(model, x)));
    }
  });

  it('was trained on the features the code computes today (names and order), as its model card says', () => {
    const card = JSON.parse(readFileSync(fromRoot('models/text/reader/model-card.json'), 'utf8')) as Record<string, { features: string[] }>;
    for (const [file, names, part] of [
      ['sentence.onnx', SENTENCE_FEATURES, 'sentence_ranker'],
      ['span.onnx', SPAN_FEATURES, 'span_ranker'],
    ] as const) {
      const { model, meta } = ensembleFromOnnx(new Uint8Array(readFileSync(fromRoot(`models/text/reader/${file}`))));
      expect(meta.featureNames).toEqual([...names]);
      expect(model.nFeatures).toBe(names.length);
      expect(card[part]!.features).toEqual([...names]);
    }
  });

  it('computes each feature under the name its model card lists, and no other', () => {
    // The models' rows are assembled by name from these records (featureVector): a feature renamed, dropped or added in
    // the code without retraining fails here, whatever the order of the code's lists.
    const card = JSON.parse(readFileSync(fromRoot('models/text/reader/model-card.json'), 'utf8')) as Record<string, { features: string[] }>;
    const q = analyseQuestion('Who founded the first normal school in 1839?', () => 1);
    const text = 'Horace Mann founded the first normal school in Massachusetts in 1839.';
    const sentence = sentenceFeatures(q, [{ text, chunkRank: 0, chunkBm25: 1, position: 0 }])[0]!;
    const terms = termsOf(text);
    const span = spanFeatures(terms, spanCandidates(terms, q).slice(0, 1), q, sentence, { score: 0, rank: 0, gap: 0 })[0]!;
    expect(Object.keys(sentence)).toEqual(card.sentence_ranker!.features);
    expect(Object.keys(span).sort()).toEqual([...card.span_ranker!.features].sort());
    for (const x of [...Object.values(sentence), ...Object.values(span)]) expect(Number.isFinite(x)).toBe(true);
  });

  it("assembles a model's input row by the model's own feature names", () => {
    const record = { a: 1, b: 2, c: 3 };
    expect([...featureVector(record, ['c', 'a'])]).toEqual([3, 1]);
    expect(() => featureVector(record, ['a', 'd'])).toThrow(/no feature named d/);
    expect(() => checkFeatureNames('model.onnx', ['a', 'd'], ['a', 'b', 'c'])).toThrow(/d/);
    expect(() => checkFeatureNames('model.onnx', ['c', 'a'], ['a', 'b', 'c'])).not.toThrow();
  });

  it('answers a factoid question with a span of the sentence that holds it', () => {
    const q = analyseQuestion('Who founded the first normal school?', () => 1);
    const r = reader.read(q, [
      { text: 'Public schools in Ohio enrolled more children than ever.', chunkRank: 0, chunkBm25: 1, position: 0 },
      { text: 'Horace Mann founded the first normal school in Massachusetts in 1839.', chunkRank: 0, chunkBm25: 1, position: 1 },
    ])!;
    expect(r.answerType).toBe('factoid');
    expect(r.sentence).toBe('Horace Mann founded the first normal school in Massachusetts in 1839.');
    expect(r.sentence).toContain(r.answer);
    expect(r.answer.length).toBeLessThan(r.sentence.length);
  });

  it("does not answer with a sentence that asks a question, as a FAQ's question line repeats the user's words", () => {
    const q = analyseQuestion('What does the prefix XIO mean?', () => 1);
    const sentences = ['Q: What does the prefix XIO mean?', 'A: XIO stands for extended input/output, a library of address types.'];
    const r = reader.read(q, oneChunk(sentences))!;
    // The answer line, without its marker.
    expect(r.sentence).toBe(sentences[1]!.slice('A: '.length));
    expect(reader.rankSentences(q, oneChunk(sentences))[0]).toBe(0);
    expect(asksQuestion('"Where are you going?"')).toBe(true);
    expect(asksQuestion('"Where are you going?" he asked.')).toBe(false);
    // A FAQ's question line asks, with or without its question mark; its answer line does not.
    expect(asksQuestion('Q: configure disables readline support because it does not find an include file.')).toBe(true);
    expect(asksQuestion('Question 3) The build stops with an error.')).toBe(true);
    expect(asksQuestion('A: Set CPPFLAGS to the directory of the include files.')).toBe(false);
    expect(asksQuestion('Q. Smith wrote the first version.')).toBe(false);
  });

  it('answers an open question with whole sentences', () => {
    const q = analyseQuestion('Why did the farmers leave Kansas?', () => 1);
    const sentences = ['The drought ruined the wheat in Kansas.', 'Many farmers left Kansas because the rain never came.', 'Corn prices rose in Ohio.'];
    const r = reader.read(q, oneChunk(sentences))!;
    expect(r.answerType).toBe('open');
    for (const part of r.answer.split(/(?<=\.) /)) expect(sentences).toContain(part);
  });

  it('keeps the short reply ("Yes.", "No, not yet.") that opens the sentence it answers with, and no other sentence before it', () => {
    const q = analyseQuestion('Is the library safe to use from several threads?', () => 1);
    for (const reply of ['Yes.', 'No, not yet.']) {
      const faq = [reply, 'The library is safe to use from several threads when each thread has its own stream.'];
      const r = reader.read(q, oneChunk(faq))!;
      expect(r.answerType).toBe('open');
      expect(r.answer).toBe(faq.join(' '));
    }
    // A sentence before it that is not a reply stays out, and so does a reply in another chunk.
    const other = ['Threads came late to the project.', 'The library is safe to use from several threads when each thread has its own stream.'];
    expect(reader.read(q, oneChunk(other))!.answer).toBe(other[1]);
    const apart = reader.read(q, [
      { text: 'Yes.', chunkRank: 1, chunkBm25: 1, position: 0 },
      { text: other[1]!, chunkRank: 0, chunkBm25: 1, position: 1 },
    ])!;
    expect(apart.answer).toBe(other[1]);
  });

  it('keeps the sentence that the answer points back to for its cause ("As a result, ...", "That is why ...")', () => {
    const q = analyseQuestion('why is static linking to the library not recommended?', () => 1);
    for (const opening of ['As a result, we', 'That is why we', 'Therefore we']) {
      const text = ['Files of the library move between versions.', `${opening} do not recommend static linking to the library.`];
      const r = reader.read(q, oneChunk(text))!;
      expect(r.answer).toBe(text.join(' '));
    }
    // Without such an opening the sentence stands alone.
    const plain = ['Files of the library move between versions.', 'We do not recommend static linking to the library.'];
    expect(reader.read(q, oneChunk(plain))!.answer).toBe(plain[1]);
  });

  it('keeps the sentence that an answer ending with a colon announces (a command under "Then subscribe to a topic:")', () => {
    const q = analyseQuestion('how do I subscribe to a topic with the broker?', () => 1);
    const text = [
      'The broker starts with its default settings.',
      'Then use the client to subscribe to a topic with the broker:',
      "broker_sub -t 'test/topic' -v",
    ];
    const r = reader.read(q, oneChunk(text))!;
    expect(r.answer).toBe(text.slice(1).join(' '));
    // In another chunk, what follows is not what the colon announces.
    const apart = reader.read(q, twoChunks(text[1]!, text[2]!))!;
    expect(apart.answer).toBe(text[1]);
  });

  it('keeps the line after a sentence that breaks off after a preposition (an address under "Send bug reports to")', () => {
    const q = analyseQuestion('where should I send bug reports for the tool?', () => 1);
    const text = ['The tool reads its settings at start.', 'Send bug reports, comments, questions, etc. to', 'Jane Q. Maintainer <jane@example.org>'];
    expect(reader.read(q, oneChunk(text))!.sentence).toBe(text.slice(1).join(' '));
    // A sentence that ends with a full stop announces nothing: the best sentence read (core, without the next sentence
    // it may go on with) is that sentence alone.
    const closed = [text[0]!, 'Bug reports are welcome in the tracker.', 'The tool is written in C.'];
    const read = reader.read(q, oneChunk(closed))!;
    expect(read.core ?? read.sentence).toBe(closed[1]);
  });

  it('keeps the path or command on its own line after a sentence of prose that breaks off ("... in the directory")', () => {
    const q = analyseQuestion('where is the html manual of the tool installed?', () => 1);
    const text = ['The tool reads its settings at start.', 'The html manual of the tool is installed in the directory', '/usr/share/doc/tool/html'];
    expect(reader.read(q, oneChunk(text))!.sentence).toBe(text.slice(1).join(' '));
    // What follows a sentence that breaks off is not announced when it is a sentence of prose, nor when it is in
    // another chunk.
    const prose = [text[0]!, text[1]!, 'Other files are kept elsewhere.'];
    expect(reader.read(q, oneChunk(prose))!.sentence).toBe(text[1]);
    expect(reader.read(q, twoChunks(text[1]!, text[2]!))!.sentence).toBe(text[1]);
  });

  it("leaves out a FAQ's answer marker of each sentence it joins into an open answer", () => {
    const q = analyseQuestion('how do I keep a background process from being stopped by the terminal?', () => 1);
    const text = ['To keep a background process from being stopped by the terminal, clear its flag:', 'A: stty -tostop'];
    const r = reader.read(q, oneChunk(text))!;
    expect(r.answer).toBe(`${text[0]} stty -tostop`);
  });

  it('never answers with a lone word: a heading or a reply is not an answer by itself', () => {
    const q = analyseQuestion('what are triggers used for?', () => 1);
    const text = ['TRIGGERS.', 'Triggers can be activated by any program at any time.', 'Packages declare them in a control file.'];
    const r = reader.read(q, oneChunk(text))!;
    expect(r.answer).not.toMatch(/^TRIGGERS/);
    expect(reader.rankSentences(q, oneChunk(text))[0]).toBe(0);
  });

  it('adds to the answer of a "why" question the next sentence when it points back to it with the cause', () => {
    const q = analyseQuestion('why is the custom allocator used by default when building on linux?', () => 1);
    const text = [
      'The server is linked against the system allocator by default, with the custom allocator being the default on Linux.',
      'This default was picked because the custom allocator has fewer fragmentation problems.',
    ];
    const candidates = oneChunk(text);
    expect(reader.read(q, candidates)!.answer).toBe(text.join(' '));
  });

  it('adds to the answer of a "how" question the next sentence when it says how that is done, and what it announces', () => {
    const q = analyseQuestion('how does the search tool avoid reading every file to speed things up?', () => 1);
    const text = [
      'To gain speed, the search tool avoids reading files whenever possible.',
      'It does this by:',
      // The sentence splitter leaves a numbered item's marker alone: it comes with its item.
      '1.',
      'Checking the size of each folder first.',
      'The tool is written in C.',
    ];
    expect(reader.read(q, oneChunk(text))!.answer).toBe(text.slice(0, 4).join(' '));
    // A next sentence that does not say how stands apart.
    const plain = [text[0]!, 'The tool is written in C.'];
    expect(reader.read(q, oneChunk(plain))!.answer).toBe(plain[0]);
  });

  it('answers a question that asks for an option with the span of the sentence written as one', () => {
    const q = analyseQuestion('which option makes the tool list all the internet sockets?', () => 1);
    const text = ['To list all open Internet and UNIX domain files, use the -i option without further qualification.'];
    expect(reader.read(q, oneChunk(text))!.answer).toBe('-i');
    // A question that does not ask for an option keeps the reader's span.
    const other = analyseQuestion('what does the tool list without further qualification?', () => 1);
    expect(reader.read(other, oneChunk(text))!.answer).not.toBe('-i');
  });

  it('reads a question for an argument or an "arg" as one for an option', () => {
    const text = ['To keep the blank lines of the output, the old preprocessor needs the -keep-blank flag as well.'];
    for (const question of ['the preprocessor drops my blank lines, what argument fixes that?', 'which args stop that?']) {
      expect(
        reader.read(
          analyseQuestion(question, () => 1),
          oneChunk(text),
        )!.answer,
      ).toBe('-keep-blank');
    }
  });

  /** The reader's answer to `question` from a passage of one sentence. */
  const answerIn = (question: string, sentence: string) =>
    reader.read(
      analyseQuestion(question, () => 1),
      oneChunk([sentence]),
    )!.answer;

  it('answers a question that asks for a file, a path or a folder with the span of the sentence written as one', () => {
    const cases = [
      ['which file does the loader read by default?', 'By default, the loader will look for a file called .env in the current working directory.', '.env'],
      [
        'which directory does the daemon serve repositories from by default?',
        'By default the daemon serves repositories from /var/lib/git and nothing else.',
        '/var/lib/git',
      ],
      ['what config file does the tool read at startup?', 'At startup the tool reads settings from ~/.toolrc when it exists.', '~/.toolrc'],
    ];
    for (const [question, sentence, answer] of cases) expect(answerIn(question!, sentence!)).toBe(answer);
    // A question for a kind of file, not a file, keeps the reader's span.
    const kind = analyseQuestion('what file format does the exporter write?', () => 1);
    expect(reader.read(kind, oneChunk(['The exporter writes JSON to out/report.json unless told otherwise.']))!.answer).not.toBe('out/report.json');
  });

  it("answers a question that asks for a package with the span of the sentence written as a package's name", () => {
    const q = analyseQuestion('which package do I need to get ldapsearch and ldapadd?', () => 1);
    const sentence =
      'Most hosts that use the directory should install at least ldap-client, which holds the basic ldapsearch and ldapadd binaries, as well as other basic utilities.';
    expect(reader.read(q, oneChunk([sentence]))!.answer).toBe('ldap-client');
    // A question for a package's version keeps the reader's span.
    const version = analyseQuestion('from which package version does the server make a new cookie?', () => 1);
    expect(reader.read(version, oneChunk(['Since 3.9.8-3, the server-tools package makes a new cookie on first install.']))!.answer).not.toBe('server-tools');
  });

  it('answers a question that asks for a version or a method with the span of the sentence written as one', () => {
    const cases = [
      [
        'which version of the robots spec does the crawler follow?',
        'crawler is a polite fetcher written in pure JavaScript according to the robots spec 1.4.2.',
        '1.4.2',
      ],
      [
        'which method should I call to empty the queue without running the waiting tasks?',
        'Emptying the queue without running what waits is done by calling queue.discardAll() on it.',
        'queue.discardAll',
      ],
    ];
    for (const [question, sentence, answer] of cases) expect(answerIn(question!, sentence!)).toContain(answer);
  });

  it('keeps the sentence before an answer that opens with "The result is", for its cause', () => {
    const q = analyseQuestion('how is the matcher so much faster than other matchers?', () => 1);
    const text = ['The matcher skips impossible text without looking at every character.', 'The result is typically many times faster than other matchers.'];
    expect(reader.read(q, oneChunk(text))!.answer).toBe(text.join(' '));
  });

  it('goes on with the next sentence of an open answer when the ranker finds it close enough (CONTINUE_SHARE)', () => {
    const q = analyseQuestion('when the service runs as root, how do i make it use another account than daemon?', () => 1);
    const others = ['Logs are written to the journal and rotated weekly.', 'Each worker process handles one connection at a time.'];
    const section = (next: string) => [
      ...oneChunk(['Running as root.', 'If the service is started as root, it drops its privileges to the daemon user by default.', next]),
      ...others.map((text, position) => ({ text, chunkRank: 1, chunkBm25: 0.8, position })),
    ];
    const read = reader.read(q, section('If you want it to use some other account, name it in the RUN_AS environment variable.'))!;
    expect(read.answer).toBe(
      'If the service is started as root, it drops its privileges to the daemon user by default. If you want it to use some other account, name it in the RUN_AS environment variable.',
    );
    // The learned decision judges the sentence read, without the one it goes on with.
    expect(read.core).toBe('If the service is started as root, it drops its privileges to the daemon user by default.');
    // A next sentence that says nothing of the question is left out.
    expect(reader.read(q, section('The build takes ten minutes on a laptop.'))!.answer).toBe(
      'If the service is started as root, it drops its privileges to the daemon user by default.',
    );
  });

  it('goes on past the colon of the sentence an open answer goes on with, to what that sentence announces', () => {
    const q = analyseQuestion('how can I make every newly created user get an empty allow list automatically?', () => 1);
    const others = ['Logs are written to the journal and rotated weekly.', 'Each worker process handles one connection at a time.'];
    const best =
      "If this isn't the behavior you want, one option is to create an empty allow list in the home directory of every user and then add names to those files where it's appropriate.";
    const candidates = [
      ...oneChunk(['Access rules.', best, 'One way to do this for all newly created users is:', 'touch /etc/skel/.allow']),
      ...others.map((text, position) => ({ text, chunkRank: 1, chunkBm25: 0.8, position })),
    ];
    const read = reader.read(q, candidates)!;
    expect(read.answerType).toBe('open');
    expect(read.answer).toBe(`${best} One way to do this for all newly created users is: touch /etc/skel/.allow`);
    // The learned decision still judges the sentence read alone.
    expect(read.core).toBe(best);
  });

  it("shows a factoid's best sentence with the next one when the ranker finds that close enough, and has the decision judge the first", () => {
    const q = analyseQuestion('which algorithm does the archiver use for hole detection by default?', () => 1);
    const others = ['Logs are written to the journal and rotated weekly.', 'Each worker process handles one connection at a time.'];
    const section = (next: string) => [
      ...oneChunk(['New option --hole-detection selects the algorithm the archiver uses for hole detection.', next]),
      ...others.map((text, position) => ({ text, chunkRank: 1, chunkBm25: 0.8, position })),
    ];
    const next = 'By default the archiver uses the seek algorithm for detection, and raw where seek is not supported.';
    const read = reader.read(q, section(next))!;
    expect(read.answerType).toBe('factoid');
    expect(read.sentence).toBe(`New option --hole-detection selects the algorithm the archiver uses for hole detection. ${next}`);
    expect(read.core).toBe('New option --hole-detection selects the algorithm the archiver uses for hole detection.');
    // A next sentence that says nothing of the question is not shown with it.
    const alone = reader.read(q, section('The build takes ten minutes on a laptop.'))!;
    expect(alone.sentence).toBe('New option --hole-detection selects the algorithm the archiver uses for hole detection.');
    expect(alone.core).toBeUndefined();
  });

  it('quotes two sentences that do not follow each other as two excerpts, and has the decision judge them as read', () => {
    const q = analyseQuestion('what did the committee say about the budget of the museum?', () => 1);
    const text = [
      'The committee said the budget of the museum must shrink by a tenth.',
      'Visitors came from many towns.',
      'Later the committee said the museum budget could grow again in two years.',
      'The garden was replanted.',
    ];
    const read = reader.read(q, oneChunk(text))!;
    expect(read.answer).toBe(`${text[0]} … ${text[2]}`);
    expect(read.core).toBe(`${text[0]} ${text[2]}`);
  });

  it('answers a factoid whose span points ahead ("the following option") with what its sentence announces', () => {
    const q = analyseQuestion('what option do i put in the client config so it checks host keys against DNS?', () => 1);
    const text = [
      'To enable the client to check host keys using DNS, you have to add the following option to the client config file:',
      'CheckHostKeyDNS yes',
      'Upon connection the client looks up the key.',
    ];
    const candidates = oneChunk(text);
    const r = reader.read(q, candidates)!;
    expect(r.answer).toBe('CheckHostKeyDNS yes');
    expect(r.sentence).toBe(text.slice(0, 2).join(' '));
    // Without a line announced by a colon, the span stays as the reader chose it.
    const unannounced = reader.read(q, [{ ...candidates[0]!, text: text[0]!.replace(/:$/, '.') }, candidates[2]!])!;
    expect(unannounced.answer).not.toBe('CheckHostKeyDNS yes');
  });

  it("gives a factoid's sentence that ends with a colon together with what it announces", () => {
    const q = analyseQuestion('what command line does the daemon run the hook script with for pending work?', () => 1);
    const text = [
      'The daemon keeps a queue of pending work.',
      'To process pending work, the daemon will run the hook script as:',
      'hook process "<name> <name> ..."',
    ];
    const r = reader.read(q, oneChunk(text))!;
    expect(r.answerType).toBe('factoid');
    expect(r.sentence).toBe(text.slice(1).join(' '));
    // In another chunk, what follows is not what the colon announces.
    const apart = reader.read(q, twoChunks(text[1]!, text[2]!))!;
    expect(apart.sentence).toBe(text[1]);
  });

  it('keeps the capitalised words before a name that the question holds: they belong to the name the span starts', () => {
    const stems = (question: string) => analyseQuestion(question, () => 1).stems;
    const q = stems('who is the license steward of the mozilla public license?');
    expect(wholeName('Mozilla Foundation is the license steward.', 'Foundation', q)).toBe('Mozilla Foundation');
    // Words the question does not hold, lower-case words and a span that is not a name stay as they are.
    expect(wholeName('Apache Foundation is the license steward.', 'Foundation', q)).toBe('Foundation');
    expect(wholeName('The mozilla Foundation is the steward.', 'Foundation', q)).toBe('Foundation');
    expect(wholeName('Mozilla released version 2.0 in 2012.', 'version 2.0', stems('which version did mozilla release?'))).toBe('version 2.0');
    // At most three words, and not across punctuation.
    const river = stems('which river of the north east flows through the city?');
    expect(wholeName('The city lies on the River Tyne.', 'Tyne', river)).toBe('River Tyne');
    expect(wholeName('It flows north, River. Tyne is its name.', 'Tyne', river)).toBe('Tyne');
  });

  it('closes a quote the span opens when its sentence closes it right after the span', () => {
    const sentence = "Put the files there and re-run 'update-ca-certificates'.";
    expect(closeQuote(sentence, "re-run 'update-ca-certificates")).toBe("re-run 'update-ca-certificates'");
    // A closed quote, an apostrophe inside a word, and a quote the sentence does not close right after stay as they are.
    expect(closeQuote(sentence, "re-run 'update-ca-certificates'")).toBe("re-run 'update-ca-certificates'");
    expect(closeQuote("Don't run it' now.", "Don't run it")).toBe("Don't run it");
    expect(closeQuote("Run 'make install' as root.", "Run 'make")).toBe("Run 'make");
  });

  it('takes the rest of a name that the span cuts short on the right', () => {
    const q = analyseQuestion('Who wrote GNU bc?', () => 1).stems;
    expect(wholeName('GNU bc was written by Philip A. Nelson.', 'Philip', q)).toBe('Philip A. Nelson');
    expect(wholeName('It was written by Philip A. Nelson and others.', 'written by Philip', q)).toBe('written by Philip A. Nelson');
    // Not across punctuation, not past three words, never ending with an initial, and only after a capitalised word.
    expect(wholeName('It was written by Philip, Anna and Bo.', 'Philip', q)).toBe('Philip');
    expect(wholeName('It was written by Philip A. in 1991.', 'Philip', q)).toBe('Philip');
    expect(wholeName('Written by Ann Bea Cid Dee Eve today.', 'Ann', q)).toBe('Ann Bea Cid Dee');
    expect(wholeName('It was written by many people over years.', 'many people', q)).toBe('many people');
    expect(wholeName('It was written by the Free Software Foundation.', 'the Free', q)).toBe('the Free Software Foundation');
  });

  it('answers with the whole name when the span ranker leaves out the part the question names', () => {
    const q = analyseQuestion('who is the license steward of the mozilla public license?', () => 1);
    const text = [
      'New Versions.',
      'Mozilla Foundation is the license steward.',
      'No one other than the license steward may publish new versions of this License.',
    ];
    const r = reader.read(q, oneChunk(text))!;
    expect(r.answer).toBe('Mozilla Foundation');
  });

  it('answers "What are the N Xs?" with the sentence that announces the set and the ones that go through it, up to N', () => {
    const q = analyseQuestion('What are the three branches?', () => 1);
    const text = [
      'The tree grew slowly on the hill.',
      'Our government rests on three branches.',
      'The first is the legislature, which makes the laws.',
      'The second is the executive.',
      'Third, the courts judge by those laws.',
      'The fourth estate is the press.',
    ];
    const r = reader.read(q, oneChunk(text))!;
    expect(r.answerType).toBe('open');
    expect(r.answer).toBe(text.slice(1, 5).join(' '));
  });

  it("takes a person the document's file name holds as met by every sentence: the answer is not the sentence that names them in passing", () => {
    // The name is rare in the collection, "war" common (as in a collection of addresses where "Johnson" appears twice).
    const q = analyseQuestion('What did Lyndon Johnson declare war on?', (stem) => ({ lyndon: 3, johnson: 3, war: 0.5 })[stem] ?? 1);
    const speech = [
      'On every continent and in every land to which Mrs. Johnson and I traveled, we found faith and hope.',
      'This administration today, here and now, declares unconditional war on poverty in America.',
    ];
    const candidates = (titleStems?: ReadonlySet<string>) =>
      speech.map((text, position) => ({ text, chunkRank: 0, chunkBm25: 1, position, ...(titleStems ? { titleStems } : {}) }));
    const best = (p: number[]) => speech[p.indexOf(Math.max(...p))];
    // Without the file name the passing mention wins (the failure this guards against), with it the answer does.
    expect(best(reader.rankSentences(q, candidates()))).toBe(speech[0]);
    expect(best(reader.rankSentences(q, candidates(titleStems('1964_lyndon_b_johnson_d.txt'))))).toBe(speech[1]);
  });
});

describe('a name that the span cuts short', () => {
  it('takes the rest of the name, but not past the end of its line', () => {
    expect(wholeName('written by Philip A. Nelson.', 'Philip', new Set())).toBe('Philip A. Nelson');
    expect(wholeName('Author: Philip A. Nelson\nE-mail: phil@example.org', 'Philip', new Set())).toBe('Philip A. Nelson');
  });
});

describe("a document's file name as words", () => {
  it('gives the stems of the path without its extension', () => {
    expect([...titleStems('speeches/1964_lyndon_b_johnson_d.txt')]).toEqual(expect.arrayContaining(['1964', 'lyndon', 'johnson']));
    expect(titleStems('Super_Bowl_50.txt').has('txt')).toBe(false);
  });
});
