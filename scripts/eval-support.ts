// npm run eval:support [-- --squad data/datasets/squad/dev-v1.1-part-a.json --every 1]
// The support check ("not in the collection") on SQuAD's odd-numbered articles only, in two folds: half of them are
// indexed, and their questions are answerable; the other half's questions, asked against that collection, are not.
// Every question goes through /rag/ask's pipeline without an LLM; the support step's terms are kept, so the rule is
// also re-scored at other thresholds (the sweep), from which the defaults were chosen.
import { parseArgs } from 'node:util';
import { DEFAULT_SUPPORT, type SupportSettings, type SupportTerm } from '../src/text/rag/ask/support.js';
import { round4, writeResults } from './lib/results.js';
import { withSquadCollection } from './lib/text/squad-collection.js';

const { values } = parseArgs({
  options: { squad: { type: 'string', default: 'data/datasets/squad/dev-v1.1-part-a.json' }, every: { type: 'string', default: '1' } },
});
const every = Number(values.every);

interface Asked {
  question: string;
  answerable: boolean;
  /** Relevance filter kept nothing (not found before the support check). */
  irrelevant: boolean;
  terms: SupportTerm[];
  notFound: boolean;
}

/**
 * The rule of support.ts, re-applied to the recorded terms of the passage the pipeline chose as the best one (with
 * other thresholds another passage might have been best, and the check of the answer's sentence window is not
 * replayed: the sweep is an approximation; the headline figures are exact).
 */
function passes(terms: SupportTerm[], s: SupportSettings, namesMayMiss = 0): boolean {
  const covered = (t: SupportTerm) => t.found || (t.similar?.similarity ?? -1) >= s.minSimilarity;
  const counted = terms.filter((t) => !t.inTitleOnly);
  const total = counted.reduce((a, t) => a + t.weight, 0);
  const coverage = total ? counted.filter(covered).reduce((a, t) => a + t.weight, 0) / total : 1;
  // Rare nouns (not the kind of answer asked for) count as names: they must be covered; a number of a range is
  // covered when one of its range is.
  const inFoundGroup = (t: SupportTerm) => t.group !== undefined && terms.some((o) => o.group === t.group && o.found);
  const names = terms.filter((t) => (t.kind !== 'word' && !inFoundGroup(t)) || (t.noun === true && !t.answerKind && t.weight >= s.rareWord));
  // namesMayMiss: that many names may be absent when at least two others are present.
  const missing = names.filter((t) => !covered(t)).length;
  const namesOk = missing === 0 || (missing <= namesMayMiss && names.length - missing >= 2);
  // One of the question's common nouns (what is asked about its names) must be there.
  const things = terms.filter((t) => t.kind === 'word' && t.noun === true && !t.answerKind);
  const asked = !things.length || things.some(covered);
  return namesOk && asked && coverage >= s.minCoverage;
}

const asked: Asked[] = [];
for (const fold of [1, 3]) {
  // Odd articles only: fold 1 indexes articles 1, 5, 9, ... and asks 3, 7, 11, ... as unanswerable; fold 3 the reverse.
  const indexedArticle = (a: number) => a % 4 === fold;
  await withSquadCollection(
    values.squad,
    async (app, questions) => {
      const asker = await app.rag.ask();
      const odd = questions.filter((q) => q.article % 2 === 1).filter((_, i) => i % every === 0);
      let done = 0;
      for (const q of odd) {
        let terms: SupportTerm[] = [];
        let irrelevant = false;
        const r = await asker.ask(q.question, 5, (step, data) => {
          if (step === 'guardrail_support') terms = data.terms as SupportTerm[];
          if (step === 'guardrail_relevance') irrelevant = !data.passed;
        });
        asked.push({ question: q.question, answerable: q.indexed, irrelevant, terms, notFound: r.answer_passage === null });
        if (++done % 250 === 0) console.log(`fold ${fold}: ${done}/${odd.length}`);
      }
    },
    indexedArticle,
  );
}

if (process.env.SUPPORT_DUMP) (await import('node:fs')).writeFileSync(process.env.SUPPORT_DUMP, JSON.stringify(asked, null, 1));
const rate = (xs: Asked[], f: (a: Asked) => boolean) => round4(xs.filter(f).length / Math.max(1, xs.length));
const answerable = asked.filter((a) => a.answerable);
const unanswerable = asked.filter((a) => !a.answerable);
const notFoundWith =
  (s: SupportSettings, names = 0) =>
  (a: Asked) =>
    a.irrelevant || !passes(a.terms, s, names);
const sweep = [];
for (const names of [0, 1])
  for (const minSimilarity of [0.6, 0.7, 0.8, 1.01])
    for (const minCoverage of [0.3, 0.4, 0.5, 0.6, 0.7]) {
      const s = { minCoverage, minSimilarity, rareWord: DEFAULT_SUPPORT.rareWord };
      sweep.push({
        names_may_miss: names,
        min_similarity: minSimilarity > 1 ? 'stems only' : minSimilarity,
        min_coverage: minCoverage,
        false_not_found: rate(answerable, notFoundWith(s, names)),
        caught: rate(unanswerable, notFoundWith(s, names)),
      });
    }
const rareWordSweep = [0.8, 0.85, 0.9, 0.95, 1.01].map((rareWord) => {
  const s = { ...DEFAULT_SUPPORT, rareWord };
  return {
    rare_word: rareWord > 1 ? 'off' : rareWord,
    false_not_found: rate(answerable, notFoundWith(s)),
    caught: rate(unanswerable, notFoundWith(s)),
  };
});
const results = {
  settings: DEFAULT_SUPPORT,
  answerable: answerable.length,
  unanswerable: unanswerable.length,
  false_not_found: rate(answerable, (a) => a.notFound),
  false_not_found_relevance: rate(answerable, (a) => a.irrelevant),
  false_not_found_names: rate(answerable, (a) => !a.irrelevant && a.terms.some((t) => t.kind !== 'word' && !t.found)),
  caught: rate(unanswerable, (a) => a.notFound),
  caught_by_relevance: rate(unanswerable, (a) => a.irrelevant),
  caught_by_names: rate(unanswerable, (a) => !a.irrelevant && a.terms.some((t) => t.kind !== 'word' && !t.found)),
  sweep,
  rare_word_sweep: rareWordSweep,
};
console.log(`\n| support check, SQuAD odd articles | value |\n|---|---|`);
console.log(`| answerable questions | ${results.answerable} |\n| unanswerable questions | ${results.unanswerable} |`);
console.log(`| false "not in the collection" (answerable) | ${results.false_not_found} |`);
console.log(`| caught (unanswerable answered "not in the collection") | ${results.caught} |`);
console.log('\n| names may miss | min similarity | min coverage | false not-found | caught |\n|---|---|---|---|---|');
for (const r of sweep) console.log(`| ${r.names_may_miss} | ${r.min_similarity} | ${r.min_coverage} | ${r.false_not_found} | ${r.caught} |`);
console.log('\n| rare word from | false not-found | caught |\n|---|---|---|');
for (const r of rareWordSweep) console.log(`| ${r.rare_word} | ${r.false_not_found} | ${r.caught} |`);
console.log(`\nwrote ${writeResults('qa-support', results)}`);
