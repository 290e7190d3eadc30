import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import { predictRaw, sigmoid } from '../../src/infra/tree-ensemble.js';
import { passengerFromKaggle, toFeatures } from '../../src/survival/preprocess.js';
import { confidenceOf, messageOf } from '../../src/survival/service.js';
import { readTitanic } from '../../scripts/lib/titanic-data.js';
import { makeApp } from '../helpers/app.js';
import { passengerArb, servedParams, servedTrees } from '../helpers/survival.js';

const valid = { pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'S' };
const params = servedParams();
const trees = servedTrees();

describe('survival API', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  const predict = (payload: unknown) => app.inject({ method: 'POST', url: '/api/predict', payload: payload as object });

  it('predicts with derived fields and the model version', async () => {
    const res = await predict(valid);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ prediction: 1, confidence: 'high', family_size: 1, model_version: '1.0.0' });
    expect(body.probability).toBeGreaterThan(0.7);
    expect(body.message).toMatch(/^Passenger likely survived with \d+\.\d% confidence$/);
    expect(body.inferred_fare).toBe(params.fare_table['1']!['1']);
    expect(res.headers['x-model-version']).toBe('1.0.0');
  });

  it('sends the model version header on survival routes only', async () => {
    const kaggle = await app.inject({ method: 'POST', url: '/predict', payload: { Pclass: 3, Name: 'Kelly, Mr. James', Sex: 'male', SibSp: 0, Parch: 0 } });
    expect(kaggle.headers['x-model-version']).toBe('1.0.0');
    for (const url of ['/health', '/live', '/predictions-page-that-does-not-exist']) {
      expect((await app.inject({ method: 'GET', url })).headers['x-model-version']).toBeUndefined();
    }
  });

  it('says a third-class man likely did not survive, with 1 - p in the message', async () => {
    const body = (await predict({ ...valid, pclass: 3, sex: 'male', age: 30, sibsp: 1, parch: 2, embarked: 'S' })).json();
    expect(body.prediction).toBe(0);
    expect(body.family_size).toBe(4);
    expect(body.message).toBe(`Passenger likely did not survive with ${((1 - body.probability) * 100).toFixed(1)}% confidence`);
  });

  it('infers the title of a passenger sent without one from sex and age: a third-class woman is not scored as a man', async () => {
    const woman = { pclass: 3, sex: 'female', age: 30, sibsp: 0, parch: 0, embarked: 'S' };
    const untitled = (await predict(woman)).json();
    const asMr = (await predict({ ...woman, name_title: 'Mr' })).json();
    const asMrs = (await predict({ ...woman, name_title: 'Mrs' })).json();
    // In the training data most women of 25 and over are Mrs (88 of 141 with an age in train.csv).
    expect(untitled).toMatchObject({ name_title: 'Mrs', imputed: ['name_title'], probability: asMrs.probability });
    expect(untitled.probability).toBeGreaterThan(asMr.probability + 0.2);
    expect(asMrs.imputed).toEqual([]);
    // A girl is a Miss, a boy a Master.
    expect((await predict({ ...woman, age: 9 })).json().name_title).toBe('Miss');
    expect((await predict({ ...woman, sex: 'male', age: 9 })).json().name_title).toBe('Master');
    // The Kaggle route infers it too when the name carries no title.
    const kaggle = (
      await app.inject({
        method: 'POST',
        url: '/predict',
        payload: { Pclass: 3, Name: 'Kelly, Anna', Sex: 'female', Age: 30, SibSp: 0, Parch: 0, Embarked: 'S' },
      })
    ).json();
    expect(kaggle).toMatchObject({ name_title: 'Mrs', imputed: ['name_title'], probability: asMrs.probability });
  });

  it('health reports the real load', async () => {
    const body = (await app.inject({ url: '/health' })).json();
    expect(body).toMatchObject({ status: 'healthy', model_loaded: true, preprocessor_loaded: true });
  });

  it('applies the confidence bands and message rules', () => {
    expect([0.3, 0.7, 0.05, 0.95].map(confidenceOf)).toEqual(['high', 'high', 'high', 'high']);
    expect([0.31, 0.45, 0.55, 0.69].map(confidenceOf)).toEqual(['medium', 'medium', 'medium', 'medium']);
    expect([0.46, 0.5, 0.54].map(confidenceOf)).toEqual(['low', 'low', 'low']);
    expect(messageOf(1, 0.873)).toBe('Passenger likely survived with 87.3% confidence');
    expect(messageOf(0, 0.2)).toBe('Passenger likely did not survive with 80.0% confidence');
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['pclass 0', { pclass: 0 }, 'pclass'],
    ['pclass 4', { pclass: 4 }, 'pclass'],
    ['pclass "1"', { pclass: '1' }, 'pclass'],
    ['sex other', { sex: 'other' }, 'sex'],
    ['sex Male', { sex: 'Male' }, 'sex'],
    ['age -1', { age: -1 }, 'age'],
    ['age 100.5', { age: 100.5 }, 'age'],
    ['age string', { age: 'thirty' }, 'age'],
    ['sibsp -1', { sibsp: -1 }, 'sibsp'],
    ['sibsp 11', { sibsp: 11 }, 'sibsp'],
    ['sibsp 1.5', { sibsp: 1.5 }, 'sibsp'],
    ['parch -1', { parch: -1 }, 'parch'],
    ['parch 11', { parch: 11 }, 'parch'],
    ['embarked X', { embarked: 'X' }, 'embarked'],
    ['embarked s', { embarked: 's' }, 'embarked'],
    ['cabin_multiple 2', { cabin_multiple: 2 }, 'cabin_multiple'],
    ['cabin_multiple true', { cabin_multiple: true }, 'cabin_multiple'],
    ['name_title empty', { name_title: '  ' }, 'name_title'],
    ['name_title number', { name_title: 5 }, 'name_title'],
    ['extra field', { fare: 7.25 }, 'fare'],
    ['null age', { age: null }, 'age'],
  ];
  it('says which passenger classes there are when pclass is not 1, 2 or 3', async () => {
    const res = await predict({ ...valid, pclass: 4 });
    expect(res.json().details.errors).toContainEqual(expect.objectContaining({ loc: ['pclass'], msg: expect.stringMatching(/1, 2 or 3/) }));
    // "1" as text looks like 1: the message says a number is wanted.
    const text = await predict({ ...valid, pclass: '1' });
    expect(text.json().details.errors).toContainEqual(expect.objectContaining({ loc: ['pclass'], msg: expect.stringMatching(/the number 1, 2 or 3/) }));
  });

  it.each(bad)('400 for %s with loc naming the field', async (_name, change, loc) => {
    const res = await predict({ ...valid, ...change });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('ValidationError');
    expect(body.details.errors.map((e: { loc: string[] }) => e.loc)).toContainEqual([loc]);
  });

  it.each(['pclass', 'sex', 'age', 'sibsp', 'parch', 'embarked'])('400 when %s is missing', async (field) => {
    const body = { ...valid } as Record<string, unknown>;
    delete body[field];
    const res = await predict(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors).toContainEqual({ loc: [field], msg: 'Field required', type: 'missing' });
  });

  it('accepts the bounds themselves and defaults the optional fields', async () => {
    for (const change of [
      { age: 0 },
      { age: 100 },
      { sibsp: 10, parch: 10 },
      { name_title: 'Jonkheer' },
      { name_title: '__proto__' },
      { name_title: 'constructor' },
      { cabin_multiple: 1 },
    ]) {
      expect((await predict({ ...valid, ...change })).statusCode).toBe(200);
    }
    // cabin_multiple defaults to 0; the title of a 29-year-old woman is inferred as Mrs.
    const explicit = (await predict({ ...valid, cabin_multiple: 0, name_title: 'Mrs' })).json();
    expect((await predict(valid)).json()).toEqual({ ...explicit, imputed: ['name_title'] });
  });

  it('serves exactly what the trees compute for passengers read as the trainer reads them (no train/serve skew)', async () => {
    const { rows } = readTitanic(fromRoot('test/fixtures/titanic/passengers.csv'));
    const passengers = rows.map((r) => passengerFromKaggle(params, r));
    const res = await app.inject({ method: 'POST', url: '/api/predict/batch', payload: { passengers } });
    expect(res.statusCode).toBe(200);
    const served = res.json().predictions as { probability: number }[];
    expect(served).toHaveLength(rows.length);
    passengers.forEach((p, i) => {
      expect(served[i]!.probability).toBeCloseTo(sigmoid(predictRaw(trees, toFeatures(params, p))), 5);
    });
  });

  it('ONNX Runtime agrees with the in-process trees on thousands of random passengers', async () => {
    const passengers = fc.sample(passengerArb, { numRuns: 3000, seed: 11 });
    for (let i = 0; i < passengers.length; i += 1000) {
      const chunk = passengers.slice(i, i + 1000);
      const res = await app.inject({ method: 'POST', url: '/api/predict/batch', payload: { passengers: chunk } });
      const served = res.json().predictions as { probability: number }[];
      chunk.forEach((p, k) => {
        const expected = sigmoid(predictRaw(trees, toFeatures(params, p)));
        expect(Math.abs(served[k]!.probability - expected)).toBeLessThan(2e-6);
      });
    }
  });

  it('batch: one result each in order; an invalid item names its index; 1,001 items refused', async () => {
    const ok = await app.inject({
      method: 'POST',
      url: '/api/predict/batch',
      payload: { passengers: [valid, { ...valid, sex: 'male', pclass: 3 }] },
    });
    const single = [(await predict(valid)).json(), (await predict({ ...valid, sex: 'male', pclass: 3 })).json()];
    expect(ok.json()).toEqual({ model_version: '1.0.0', count: 2, predictions: single });

    const badItem = await app.inject({
      method: 'POST',
      url: '/api/predict/batch',
      payload: { passengers: [valid, valid, valid, { ...valid, age: 200 }] },
    });
    expect(badItem.statusCode).toBe(400);
    expect(badItem.json().details.errors[0].loc).toEqual(['passengers', '3', 'age']);

    const tooMany = await app.inject({
      method: 'POST',
      url: '/api/predict/batch',
      payload: { passengers: Array.from({ length: 1001 }, () => valid) },
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().details.errors[0].loc).toEqual(['passengers']);
  });

  it('/predict takes Kaggle CSV rows as they are, imputing an empty age', async () => {
    const row = {
      PassengerId: 6,
      Pclass: 3,
      Name: 'Moran, Mr. James',
      Sex: 'male',
      Age: '',
      SibSp: 0,
      Parch: 0,
      Ticket: '330877',
      Fare: 8.4583,
      Cabin: '',
      Embarked: 'Q',
    };
    const res = await app.inject({ method: 'POST', url: '/predict', payload: row });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ PassengerId: 6, name_title: 'Mr', imputed: ['Age'], prediction: 0 });
    const api = (await predict({ pclass: 3, sex: 'male', age: params.age_by_title.Mr, sibsp: 0, parch: 0, embarked: 'Q' })).json();
    expect(body.probability).toBe(api.probability);

    const asStrings = await app.inject({
      method: 'POST',
      url: '/predict',
      payload: {
        PassengerId: '2',
        Survived: '1',
        Pclass: '1',
        Name: 'Cumings, Mrs. John Bradley (Florence Briggs Thayer)',
        Sex: 'female',
        Age: '38',
        SibSp: '1',
        Parch: '0',
        Ticket: 'PC 17599',
        Fare: '71.2833',
        Cabin: 'C85',
        Embarked: 'C',
      },
    });
    expect(asStrings.statusCode).toBe(200);
    expect(asStrings.json()).toMatchObject({ PassengerId: 2, prediction: 1, name_title: 'Mrs', imputed: [] });

    const bad = await app.inject({ method: 'POST', url: '/predict', payload: { ...row, Pclass: 5 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors[0].loc).toEqual(['Pclass']);
  });

  it('never answers 5xx to random bodies', async () => {
    const anyValue = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }));
    const body = fc.oneof(
      fc.record(
        {
          pclass: fc.oneof(fc.constantFrom(1, 2, 3), anyValue),
          sex: fc.oneof(fc.constantFrom('male', 'female'), anyValue),
          age: fc.oneof(fc.double({ min: -10, max: 120 }), anyValue),
          sibsp: fc.oneof(fc.integer({ min: -2, max: 12 }), anyValue),
          parch: fc.oneof(fc.integer({ min: -2, max: 12 }), anyValue),
          embarked: fc.oneof(fc.constantFrom('S', 'C', 'Q'), anyValue),
          cabin_multiple: fc.oneof(fc.constantFrom(0, 1), anyValue),
          name_title: fc.oneof(fc.string(), anyValue),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.string(), anyValue),
      anyValue,
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('/api/predict', '/predict'), async (payload, url) => {
        const res = await app.inject({ method: 'POST', url, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
        expect(res.statusCode).toBeLessThan(500);
        expect([200, 400]).toContain(res.statusCode);
      }),
      { numRuns: 2000, seed: 5 },
    );
  });
});

describe('survival API without a model', () => {
  it('starts, says so in /health, and answers 500 PredictionError with the cause', async () => {
    const app = await makeApp({ MODEL_PATH: 'models/survival/missing.onnx' });
    const health = (await app.inject({ url: '/health' })).json();
    expect(health).toMatchObject({ status: 'degraded', model_loaded: false, preprocessor_loaded: true });
    const res = await app.inject({ method: 'POST', url: '/api/predict', payload: valid });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({
      error: 'PredictionError',
      message: 'An error occurred during prediction',
      details: { exception: 'the model is not loaded', internal: expect.stringContaining('missing.onnx') },
    });
    const kaggle = await app.inject({
      method: 'POST',
      url: '/predict',
      payload: { Pclass: 1, Name: 'A, Mr. B', Sex: 'male', Age: 3, SibSp: 0, Parch: 0 },
    });
    expect(kaggle.statusCode).toBe(500);
    expect(kaggle.json().error).toBe('PredictionError');
    await app.close();
  });

  it('treats a corrupt model file the same way', async () => {
    const app = await makeApp({ MODEL_PATH: 'models/survival/preprocessor.json' });
    expect((await app.inject({ url: '/health' })).json().model_loaded).toBe(false);
    expect((await app.inject({ method: 'POST', url: '/api/predict', payload: valid })).statusCode).toBe(500);
    await app.close();
  });
});
