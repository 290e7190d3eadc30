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
// Eleven invented passengers whose fitted statistics are worked out by hand below (test/fixtures/README.md).
const FIXTURE = fromRoot('test/fixtures/titanic/passengers.csv');

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

  it('fits medians, the most common port and titles as worked out by hand on a small fixture', () => {
    const { rows } = readTitanic(FIXTURE);
    const fitted = fitPreprocessor(rows, 'fixture');
    // First class: fares 30, 40, 50, 60, 70 alone (5 tickets: their median) and 100 in a family of two (too few: the
    // class median of all six, 55). Second class 10 and 20, third 7 and 8 (a fare of 0 is no fare): class medians.
    expect(fitted.fare_table).toEqual({
      '1': { '1': 50, '2': 55, '3-4': 55, '5+': 55 },
      '2': { '1': 15, '2': 15, '3-4': 15, '5+': 15 },
      '3': { '1': 7.5, '2': 7.5, '3-4': 7.5, '5+': 7.5 },
    });
    // Mr 20, 30, 40; Mrs 50, 60; Miss 18; Master 4; the doctor has no age: the median of all seven ages, 30.
    expect(fitted.age_by_title).toEqual({ Mr: 30, Mrs: 55, Miss: 18, Master: 4, Rare: 30 });
    expect(fitted.embarked_mode).toBe('S'); // 5 S, 3 C, 2 Q, one missing
    expect(fitted.title_by_sex_age!.male['0-12']).toBe('Master');
    expect(fitted.title_by_sex_age!.male['25+']).toBe('Mr');
    expect(fitted.title_by_sex_age!.female['18-24']).toBe('Miss');
    expect(fitted.title_by_sex_age!.female['25+']).toBe('Mrs');
    expect(fitted.features).toEqual([...FEATURES]);
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
