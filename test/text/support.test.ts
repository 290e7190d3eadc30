import { describe, expect, it } from 'vitest';
import { lexiconOf } from '../../src/text/rag/ask/lexicon.js';
import { questionNlp } from '../../src/text/rag/ask/question-nlp.js';
import { checkSupport, rarity } from '../../src/text/rag/ask/support.js';

// A small general vocabulary, most frequent first: "capital" is common, "ironclad" rare, "kubernetes" unknown.
const lexicon = lexiconOf(
  'the of and to in a is was what who did how many capital city navy ships built new school founded first normal teachers pay ironclad department agriculture organized act may'.split(
    ' ',
  ),
);
const passage = (text: string, source = 'a.txt') => ({ text, source });
const check = (q: string, passages: { text: string; source: string }[]) => checkSupport(q, questionNlp(q), passages, lexicon);

describe("support check: the kept passages must contain the question's key content", () => {
  const navy = passage('The Secretary of the Navy reported that the navy built three new ironclad ships in 1862 at the Boston yard.', 'navy.txt');
  const schools = passage('Horace Mann founded the first normal school in Massachusetts in 1839. Teachers asked Congress for better pay.', 'schools.txt');

  it('passes a question whose names and words a passage holds', async () => {
    const v = await check('Who founded the first normal school in Massachusetts?', [navy, schools]);
    expect(v).toMatchObject({ passed: true, missing: [], coverage: 1 });
  });

  it('refuses a question whose name no passage holds, and says which', async () => {
    const v = await check('What is the capital of France?', [navy, schools]);
    expect(v.passed).toBe(false);
    expect(v.missing).toContain('France');
  });

  it('needs the key content together in one passage, not scattered over several', async () => {
    // "Boston" is in one passage, "Massachusetts" and "school" in the other.
    expect((await check('Which school in Boston did Horace Mann found?', [navy, schools])).passed).toBe(false);
    expect((await check('Which school in Massachusetts did Horace Mann found?', [navy, schools])).passed).toBe(true);
  });

  it('counts a participle that makes a compound noun ("boiling point") as a noun: a passage on another point is no answer', async () => {
    expect(questionNlp('What is the boiling point of water?').nouns).toEqual(['boiling', 'point', 'water']);
    // "boiling" is not in this lexicon (rare): a required noun that the passage lacks.
    const v = await check('What is the boiling point of water?', [passage('At that point the troops carried water inland.')]);
    expect(v.passed).toBe(false);
    expect(v.missing).toContain('boiling');
  });

  it('reads the word after the named subject of "did" as the main verb, not a noun the passages must hold', async () => {
    // The tagger reads "launch", "view" and "invade" here as nouns; as nouns they would be the things asked about.
    expect(questionNlp('What did Pope Leo X launch against Luther?').nouns).not.toContain('launch');
    expect(questionNlp('Who did Luther view as the Antichrist?').nouns).not.toContain('view');
    expect(questionNlp("In what year did the Norman's invade at Bannow Bay?").nouns).toEqual(['year', 'norman', 'bannow', 'bay']);
    // A common noun after a named subject is part of it when a verb follows ("did Kennedy administration officials say").
    expect(questionNlp('What did Kennedy administration officials say about Cuba?').nouns).toContain('administration');
    // A subject in lower case, as a program's name is often typed: the word that ends the question is its verb.
    expect(questionNlp('which versions of MQTT does mosquitto support?').nouns).toEqual(['versions', 'mqtt', 'mosquitto']);
    expect(questionNlp('how many threads does piscina start?').nouns).toEqual(['threads', 'piscina']);
    // ...but a noun of a longer lower-case subject before another verb stays a noun.
    expect(questionNlp('where does the renewal hook copy the certificate to?').nouns).toContain('hook');
    // Before, "launch" (a general English word) was the one thing asked about, so a passage without it was refused.
    const q = 'What did Pope Leo X launch against Luther?';
    const withLaunch = lexiconOf(['the', 'what', 'did', 'against', 'launch', 'sent', 'bull']);
    expect((await checkSupport(q, questionNlp(q), [passage('Pope Leo X sent a bull against Luther in 1520.')], withLaunch)).passed).toBe(true);
  });

  it('refuses when most of the rarity-weighted content words are absent', async () => {
    const v = await check('How were the ironclad ships armoured and propelled?', [schools]);
    expect(v.passed).toBe(false);
    expect(v.coverage).toBeLessThan(0.5);
  });

  it('treats numbers strictly but knows their written forms, and a file name as part of its passages', async () => {
    const agriculture = passage(
      'To carry out the act of Congress of the 15th of May last, the Department of Agriculture was organized.',
      '1862_abraham_lincoln.txt',
    );
    expect((await check('What department did Lincoln organize after the act of May 15?', [agriculture])).passed).toBe(true);
    expect((await check('What department did Lincoln organize after the act of May 16?', [agriculture])).missing).toEqual(['16']);
  });

  it("takes a name in the passage's document heading as met, as one in its file name", async () => {
    const options = passage('To report a bug, add the -save-temps option to the compile command.', 'gcc-README-Bugs.txt');
    const q = 'For a Debian gcc bug report, which option do I add to the compile command?';
    expect((await check(q, [options])).missing).toEqual(['Debian']);
    const titled = { ...options, heading: 'Reporting Bugs in the GNU Compiler Collection for Debian' };
    expect((await checkSupport(q, questionNlp(q), [titled], lexicon)).passed).toBe(true);
  });

  it("refuses a passage that holds the question's person but none of its topic nouns", async () => {
    // "moon" is a common noun (in the vocabulary), so alone it is not required like a rare one; but the question is
    // about it, and the Kennedy passage never mentions it (nor any close word: no vectors here).
    const lexiconWithMoon = lexiconOf([...'the of and to in a is what did say about moon year budget'.split(' ')]);
    const kennedy = passage('President Kennedy asked the Congress for a larger budget this year.', 'kennedy.txt');
    const moon = passage('President Kennedy said the moon would be reached within the decade.', 'moon.txt');
    const ask = (passages: { text: string; source: string }[]) =>
      checkSupport('What did Kennedy say about the moon?', questionNlp('What did Kennedy say about the moon?'), passages, lexiconWithMoon);
    const refused = await ask([kennedy]);
    expect(refused.passed).toBe(false);
    expect(refused.missing).toEqual(['moon']);
    expect((await ask([kennedy, moon])).passed).toBe(true);
  });

  it('treats a word no vocabulary knows like a name', async () => {
    const v = await check('How do ironclad ships use kubernetes?', [navy]);
    expect(v.passed).toBe(false);
    expect(v.missing[0]).toBe('kubernetes');
    expect(v.terms.find((t) => t.text === 'kubernetes')?.kind).toBe('name');
  });

  it('weighs words by rarity in general English: frequent words little, unknown words fully', () => {
    expect(rarity('the', lexicon)).toBe(0.2);
    expect(rarity('kubernetes', lexicon)).toBe(1);
    expect(rarity('ironclad', lexicon)).toBeGreaterThan(rarity('capital', lexicon));
  });

  describe('with a vocabulary of realistic size', () => {
    // 8,000 filler words first, so that "iphone", "propose" and "tariff" rank as rare as they do in English.
    const big = lexiconOf([
      ...'the of and to in a is what did say about our we must provide for who navy insurance older citizens first lady want national movement creating'.split(
        ' ',
      ),
      ...Array.from({ length: 8000 }, (_, i) => `filler${i}`),
      ...'iphone propose tariff'.split(' '),
    ]);
    const ask = (q: string, passages: { text: string; source: string }[]) => checkSupport(q, questionNlp(q), passages, big);
    const obama = passage('I want to acknowledge our First Lady, Michelle Obama, who is creating a national movement.', '2010_barack_obama_d.txt');
    const johnson = passage('We must provide hospital insurance for our older citizens.', '1964_lyndon_b_johnson_d.txt');

    it('refuses a question about a rare thing the passage never mentions, though it holds the person', async () => {
      const v = await ask('What did Obama say about the iPhone?', [obama]);
      expect(v.passed).toBe(false);
      expect(v.missing).toContain('iPhone');
    });

    it('does not require a rare verb: the thing asked about is what must be there', async () => {
      expect((await ask('What insurance did Johnson propose for older citizens?', [johnson])).passed).toBe(true);
    });

    it('leaves a name met only by the file name out of the coverage: the rest of the question must be in the text', async () => {
      const v = await ask('What did Johnson say about the navy?', [johnson]);
      expect(v.passed).toBe(false);
      expect(v.missing).toEqual(['navy']);
      expect((await ask('What did Johnson say about insurance?', [johnson])).passed).toBe(true);
    });
  });

  describe('names and numbers as questions write them', () => {
    const words = [
      ...'the of and to in a is what did who when how which many first school normal teachers teach teaching reject navy built ships doctor fourth war port use protocol engine quieter quitter'.split(
        ' ',
      ),
      ...Array.from({ length: 12_000 }, (_, i) => `filler${i}`),
    ];
    const big = lexiconOf(words);
    const ask = (q: string, passages: { text: string; source: string }[]) => checkSupport(q, questionNlp(q), passages, big);
    const found = async (q: string, text: string, term: string) =>
      (await ask(q, [passage(text)])).terms.find((t) => t.text === term)?.found ?? `no term ${term}`;

    it('reads a possessive as its noun', async () => {
      expect(await found("What was the navy's first ironclad called?", 'The navy built its first ironclad in 1862.', 'navy')).toBe(true);
      expect(await found("Who was Mann's successor?", 'Horace Mann retired, and Barnas Sears succeeded him.', 'Mann')).toBe(true);
    });

    it('finds a decade with or without its century and apostrophe, and each number of a range', async () => {
      expect(await found("Who played the Doctor on stage in the 70's?", 'In the 1970s Trevor Martin played the role on stage.', "70's")).toBe(true);
      expect(await found("Who played the Doctor in the 1980's?", 'It was revived in the 1980s.', "1980's")).toBe(true);
      const range = await ask('What was built in 1861-1865?', [passage('Between 1861 and 1865 the navy built ironclads.')]);
      expect(range.terms.filter((t) => t.kind === 'number').map((t) => [t.text, t.found])).toEqual([
        ['1861', true],
        ['1865', true],
      ]);
      expect(await found('What was built in 1861-1866?', 'Between 1861 and 1865 the navy built ironclads.', '1866')).toBe(false);
    });

    it('finds an acronym that the passage spells out, a month by its abbreviation, and a name without its accents', async () => {
      expect(await found('What did the SP decide in 1999?', 'In 1999 the Scottish Parliament decided to meet in Edinburgh.', 'SP')).toBe(true);
      expect(await found('What did the SP decide in 1999?', 'In 1999 the Parliament decided to meet in Edinburgh.', 'SP')).toBe(false);
      expect(await found('Where was the Feb 2010 call published?', 'A call for change was published in February 2010 in Nature.', 'Feb')).toBe(true);
      expect(await found('Who met Celoron in 1749?', 'Céloron met the chief in 1749.', 'Celoron')).toBe(true);
    });

    it('finds a name typed with one slip (two from nine letters), but not a different short name', async () => {
      expect(await found('When did Luther write to Melanchhon?', 'Luther wrote to Melanchthon on 1 August 1521.', 'Melanchhon')).toBe(true);
      expect(
        await found('Who commissioned the Gateshead Milennium Bridge?', 'The Gateshead Millennium Bridge was commissioned by Gateshead Council.', 'Milennium'),
      ).toBe(true);
      expect(await found('What did Osama say?', 'Obama said the war would end.', 'Osama')).toBe(false);
    });

    it("finds a program's name typed in lower case with a short beginning added in the passage, but not a capitalised name", async () => {
      expect(
        await found(
          'configure flag to turn off the assembler modules in gcrypt?',
          'Libgcrypt can be built without its assembler modules: use --disable-asm.',
          'gcrypt',
        ),
      ).toBe(true);
      // A capitalised name with a beginning added is another name (Prussia is not Russia).
      expect(await found('When did Russia annex the territory?', 'Prussia annexed the territory in 1866.', 'Russia')).toBe(false);
      // A beginning of one letter is not enough.
      expect(await found('configure flag to turn off the assembler modules in gcrypt?', 'Xgcrypt can be built without its assembler modules.', 'gcrypt')).toBe(
        false,
      );
    });

    it('finds a clipped word typed in lower case ("env", "auth") in the vocabulary word it begins', async () => {
      const english = lexiconOf([...words, 'environment', 'authentication', 'author', 'variable', 'domains', 'turn', 'broker']);
      const foundIn = async (q: string, text: string, term: string) =>
        (await checkSupport(q, questionNlp(q), [passage(text)], english)).terms.find((t) => t.text === term)?.found;
      const q = 'env variable to exclude some domains from the proxy?';
      expect(await foundIn(q, 'The NO_PROXY environment variable lists the domains that are excluded from proxying.', 'env')).toBe(true);
      expect(await foundIn('how do I turn on auth for the broker?', 'Authentication is turned on with the password file.', 'auth')).toBe(true);
      // Not in a word the vocabulary lacks ("envsubst"), nor with fewer than three letters added ("author").
      expect(await foundIn(q, 'The NO_PROXY envsubst variable lists the domains.', 'env')).toBe(false);
      expect(await foundIn('how do I turn on auth for the broker?', 'The author turned it on.', 'auth')).toBe(false);
    });

    it('finds a long word of the question that the passage misspells (a word the vocabulary lacks), but not another real word', async () => {
      expect(await found('which port does the AMQP protocol use?', '5672: AMQP protcol; username and password auth', 'protocol')).toBe(true);
      // One letter from another word the vocabulary knows is that word, not a slip.
      expect(await found('which engine is quieter?', 'The quitter engine was sold.', 'quieter')).toBe(false);
    });

    it('finds an acronym of the names in a document\'s file name, and does not ask for the "many" of "how many"', async () => {
      const fdr = await ask('What did FDR say about the banks?', [passage('The banks were reopened under the new law.', '1934_franklin_d_roosevelt_d.txt')]);
      expect(fdr.terms.find((t) => t.text === 'FDR')).toMatchObject({ kind: 'name', found: true });
      const other = await ask('What did FDR say about the banks?', [passage('The banks were reopened under the new law.', '1983_ronald_reagan_r.txt')]);
      expect(other.terms.find((t) => t.text === 'FDR')?.found).toBe(false);
      const many = await ask('How many ships did the navy build?', [passage('The navy built three new ships.')]);
      expect(many.terms.map((t) => t.text)).not.toContain('many');
    });

    it('does not require a name the collection holds nearly everywhere, but still counts it in the coverage', async () => {
      const q = 'How many men did the United States send to France?';
      const text = [passage('We send many men to France every spring.')];
      expect((await checkSupport(q, questionNlp(q), text, big)).passed).toBe(false);
      const everywhere = (name: string) => ['united', 'states'].includes(name.toLowerCase());
      const v = await checkSupport(q, questionNlp(q), text, big, undefined, undefined, {}, everywhere);
      expect(v.passed).toBe(true);
      expect(v.coverage).toBeLessThan(1);
    });

    it('finds a number written with thousands separators, not its last three digits', async () => {
      const v = await ask("What was Luther's work of 60,000 words?", [passage('His treatise of 60,000 words was published in 1543.')]);
      expect(v.terms.filter((t) => t.kind === 'number').map((t) => [t.text, t.found])).toEqual([['60,000', true]]);
      expect(await found('What was his work of 70,000 words?', 'His treatise of 60,000 words was published in 1543.', '70,000')).toBe(false);
    });

    it('finds the parts of a compound: a number of "60,000-word", "UK-wide" when each part is there', async () => {
      expect(await found('What was his work of 60,000 words?', 'His 60,000-word treatise was published in 1543.', '60,000')).toBe(true);
      expect(await found('What happened in a Kingdom-wide process?', 'A kingdom of old held a process that went wide.', 'Kingdom-wide')).toBe(true);
      expect(await found('What happened in a Kingdom-wide process?', 'A kingdom of old held a process.', 'Kingdom-wide')).toBe(false);
    });

    it('finds another form of a word with the same first letters and a short different ending, not a merely similar word', async () => {
      expect(await found('What hymn followed the martyrdom of Esch?', 'Luther wrote a hymn after Esch was martyred.', 'martyrdom')).toBe(true);
      expect(await found('Which signer was descended from Huguenots?', 'He signed the Articles and was descended from Huguenots.', 'signer')).toBe(true);
      expect(await found('What area in Canada received settlers?', 'Many settled in Canadian Acadia.', 'Canada')).toBe(true);
      expect(await found('Who ran the government?', 'The governor ran the colony.', 'government')).toBe(false);
      // "inter-" starts both, but "net" and "est" are no endings: the internet is not the interest on a debt.
      expect(await found('What did Washington say about the internet?', 'He paid the interest of the debt.', 'internet')).toBe(false);
    });

    it("counts a frequent word capitalised in a title as a content word, and keeps rare ones and the extractor's names as names", async () => {
      const v = await ask('Who often plays the Fourth Doctor in comedy parodies?', [passage('Jon Culshaw often plays the Doctor.')]);
      const kinds = Object.fromEntries(v.terms.map((t) => [t.text, t.kind]));
      expect(kinds).toMatchObject({ Fourth: 'word', Doctor: 'word' });
      const w = await ask('What did Melanchthon teach at Wittenberg?', [passage('Melanchthon taught Greek at Wittenberg.')]);
      expect(w.terms.filter((t) => t.kind === 'name').map((t) => t.text)).toEqual(['Melanchthon', 'Wittenberg']);
      // "Luther reject" is one name to the entity extractor; only its capitalised word is a name.
      const r = await ask('What teaching did Luther reject?', [passage('Luther rejected the teaching of the Church.')]);
      expect(r.terms.find((t) => t.text === 'reject')?.kind).toBe('word');
    });

    it('finds an ordinal as its number or its word, a century or a decade by a year in it, and one number of a range', async () => {
      expect(await found('Who is the companion of the 10th series?', 'In the tenth series the companion is Bill.', '10th')).toBe(true);
      expect(await found('Who lectured on the 20th of October?', 'On 20 October he lectured at the library.', '20th')).toBe(true);
      expect(await found('Which settlement was founded in the 16th century?', 'The settlement was founded in 1564.', '16th')).toBe(true);
      expect(await found('Which settlement was founded in the 16th century?', 'The settlement was founded in 1664.', '16th')).toBe(false);
      expect(await found('How many fled by the 1700s?', 'By 1710 some 500,000 had fled.', '1700s')).toBe(true);
      expect(await found('How many fled by the 1700s?', 'By 1810 some 500,000 had fled.', '1700s')).toBe(false);
      // A 16th that is not a century is only the number.
      expect(await found('What happened on the 16th of May?', 'The act was passed in 1564.', '16th')).toBe(false);
      const range = await ask('Who published the 2008-2009 report?', [passage('The 2008–09 report was published by the Worldwatch Institute.')]);
      expect(range.passed).toBe(true);
      const list = await ask('Why did the British fail in 1755, 56, 57?', [passage('The British campaigns of 1755 failed.')]);
      expect(list.terms.filter((t) => t.kind === 'number' && !t.found).map((t) => t.text)).toEqual(['56', '57']);
      expect(list.missing).not.toContain('56');
      expect(await found("Where did Apollo 1's crew train?", 'The Apollo 1 crew trained at the Cape.', '1')).toBe(true);
    });

    it('takes an acronym of general English for a word, and a common word with one wrong letter for that word', async () => {
      const tv = lexiconOf(['the', 'what', 'who', 'in', 'a', 'tv', 'camera', 'damaged', 'time', 'frame', 'does', 'war', 'cover', 'seven', 'years']);
      const v = await checkSupport(
        'What damaged the TV camera?',
        questionNlp('What damaged the TV camera?'),
        [passage('Sunlight damaged the television camera.')],
        tv,
      );
      expect(v.terms.find((t) => t.text === 'TV')?.kind).toBe('word');
      expect(v.passed).toBe(true);
      const typo = 'What time framd does the Seven Years War cover?';
      const w = await checkSupport(typo, questionNlp(typo), [passage('The Seven Years War covers the years 1756 to 1763.')], tv);
      expect(w.terms.find((t) => t.text === 'framd')?.kind).toBe('word');
      // A word one edit from no frequent word stays as specific as a name.
      const k = await checkSupport('What is Kubernetes?', questionNlp('What is Kubernetes?'), [passage('The war covered seven years.')], tv);
      expect(k.missing).toContain('Kubernetes');
    });

    it('takes a word with a letter doubled or undoubled for the frequent word it misspells', async () => {
      const words = lexiconOf(['which', 'does', 'the', 'guide', 'recommend', 'generator', 'using']);
      const q = 'Which generator does the guide reccomend using?';
      const v = await checkSupport(q, questionNlp(q), [passage('The guide recommends the xorshift generator.')], words);
      expect(v.terms.find((t) => t.text === 'reccomend')).toMatchObject({ kind: 'word' });
      expect(v.missing).not.toContain('reccomend');
      // Letters that differ otherwise keep an unknown word a name.
      const other = 'Which generator does the guide recomment using?';
      const w = await checkSupport(other, questionNlp(other), [passage('The guide recommends the xorshift generator.')], words);
      expect(w.terms.find((t) => t.text === 'recomment')?.kind).toBe('word');
      const far = 'Which generator does the guide reccomand using?';
      const x = await checkSupport(far, questionNlp(far), [passage('The guide recommends the xorshift generator.')], words);
      expect(x.terms.find((t) => t.text === 'reccomand')?.kind).toBe('name');
    });

    it('does not ask the passage for a negation: "if I don\'t pass one" says how, not what about', async () => {
      const q = "What width does the wrapper use if I don't set one?";
      const v = await check(q, [passage('The wrapper uses a width of 50 by default.')]);
      expect(v.terms.map((t) => t.text)).not.toContain("don't");
    });
  });

  describe('what the question asks about', () => {
    const words = lexiconOf([
      ...'the of and to in a is what which who did how many capital operates college nation war france french spain commerce schools best way lose weight forward hope peace'.split(
        ' ',
      ),
      ...Array.from({ length: 12_000 }, (_, i) => `filler${i}`),
      // Rare: a rare noun is required, unless it is the kind of answer asked for.
      'denomination',
    ]);
    const ask = (q: string, text: string) => checkSupport(q, questionNlp(q), [passage(text)], words);

    it('does not require the noun that "what" or "which" asks for: the passage names one instead', async () => {
      const v = await ask('What denomination operates St Joseph College?', "St Joseph College is operated by the Presbyterian Church's schools trust.");
      expect(v.terms.find((t) => t.text === 'denomination')).toMatchObject({ answerKind: true, found: false });
      expect(v.passed).toBe(true);
    });

    it("takes for the best passage one that holds the question's names over one that holds more of its words", async () => {
      // "reasons" is rare here (a required noun), "commerce" and "war" common.
      const general = lexiconOf([
        ...'the of and to in a is what did as for were many when it times war cite cited commerce began'.split(' '),
        ...Array.from({ length: 12_000 }, (_, i) => `filler${i}`),
        'reasons',
      ]);
      const q = 'What did Grumman cite as the reasons for the commerce war?';
      // The first passage covers more of the question's words, but never names Grumman.
      const nameless = passage('The reasons for the commerce war were cited many times.', 'a.txt');
      const named = passage('Grumman cited the war when it began.', 'b.txt');
      const v = await checkSupport(q, questionNlp(q), [nameless, named], general);
      expect(v.passed).toBe(false);
      // The verdict's terms are those of the passage that names Grumman.
      expect(v.terms.find((t) => t.text === 'Grumman')).toMatchObject({ found: true });
      expect(v.lacks.names).toBe(0);
      expect(v.missing).toContain('reasons');
      expect(v.missing).not.toContain('Grumman');
    });

    it("refuses a passage that holds the question's names but none of its common nouns", async () => {
      const v = await ask('What is the capital of France?', 'At the start of the war between France and Spain, the commerce of Spain was spared.');
      expect(v.passed).toBe(false);
      expect(v.missing).toEqual(['capital']);
      expect((await ask('What is the capital of France?', 'Paris, the capital of France, was calm.')).passed).toBe(true);
    });

    it('does not count "way" as a thing asked about: "the best way to lose weight" asks about weight', async () => {
      const v = await ask('What is the best way to lose weight?', 'The best way forward for the nation is the hope of peace.');
      expect(v.terms.map((t) => t.text)).not.toContain('way');
      expect(v.passed).toBe(false);
      expect(v.missing).toContain('weight');
    });
  });
});
