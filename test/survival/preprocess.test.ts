import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/infra/paths.js';
import {
  FEATURES,
  type PreprocessorParams,
  cabinMultiple,
  fitPreprocessor,
  inferFare,
  passengerFromKaggle,
  titleFromName,
  titleGroup,
  toFeatures,
} from '../../src/survival/preprocess.js';
import { readTitanic } from '../../scripts/lib/titanic-data.js';

const params = JSON.parse(readFileSync(fromRoot('models/survival/preprocessor.json'), 'utf8')) as PreprocessorParams;
const TRAIN = fromRoot('../shared/data/titanic/train.csv');

describe('preprocessing', () => {
  it('reads titles from Kaggle names, including odd ones', () => {
    expect(titleFromName('Braund, Mr. Owen Harris')).toBe('Mr');
    expect(titleFromName('Rothes, the Countess. of (Lucy Noel Martha Dyer-Edwards)')).toBe('the Countess');
    expect(titleFromName('no title here')).toBeUndefined();
  });

  it('groups titles, mapping French and rare titles', () => {
    expect(titleGroup('Mlle')).toBe('Miss');
    expect(titleGroup('Mme')).toBe('Mrs');
    expect(titleGroup('Ms')).toBe('Miss');
    expect(titleGroup('master')).toBe('Master');
    expect(titleGroup('Dr')).toBe('Rare');
    expect(titleGroup('Captain Nemo')).toBe('Rare');
  });

  it('counts several cabins', () => {
    expect(cabinMultiple('C23 C25 C27')).toBe(1);
    expect(cabinMultiple('C85')).toBe(0);
    expect(cabinMultiple(null)).toBe(0);
  });

  it('has clean feature names, one per column', () => {
    expect(params.features).toEqual([...FEATURES]);
    expect(params.features).toContain('Sex_female');
    expect(params.features.every((f) => /^[A-Za-z_0-9]+$/.test(f))).toBe(true);
  });

  it('infers a larger fare for first class and for larger families within a class', () => {
    expect(inferFare(params, 1, 1)).toBeGreaterThan(inferFare(params, 3, 1));
    expect(inferFare(params, 1, 1)).toBeGreaterThan(inferFare(params, 2, 1));
    const f = toFeatures(params, { pclass: 2, sex: 'male', age: 30, sibsp: 1, parch: 2, embarked: 'C', cabin_multiple: 0, name_title: 'Mr' });
    const at = (name: string) => f[params.features.indexOf(name)]!;
    expect(at('family_size')).toBe(4);
    expect(at('is_alone')).toBe(0);
    expect(at('fare_per_person')).toBeCloseTo(at('inferred_fare') / 4, 5);
    expect(at('Embarked_C') + at('Embarked_Q') + at('Embarked_S')).toBe(1);
  });

  it('is reproduced by fitting on the training data again', () => {
    const { rows } = readTitanic(TRAIN);
    expect(fitPreprocessor(rows, params.version)).toEqual(params);
  });

  it('imputes missing training ages by title group and a missing port by the mode', () => {
    const p = passengerFromKaggle(params, {
      Pclass: 3,
      Name: 'Doe, Master. John',
      Sex: 'male',
      Age: null,
      SibSp: 1,
      Parch: 1,
      Cabin: null,
      Embarked: null,
    });
    expect(p.age).toBe(params.age_by_title.Master);
    expect(p.age).toBeLessThan(15);
    expect(p.embarked).toBe('S');
  });
});
