// Shared survival test fixtures: the served artefacts and a generator of valid random passengers.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { fromRoot } from '../../src/infra/paths.js';
import { ensembleFromOnnx } from '../../src/infra/tree-ensemble.js';
import type { Passenger, PreprocessorParams } from '../../src/survival/preprocess.js';

export const servedParams = () => JSON.parse(readFileSync(fromRoot('models/survival/preprocessor.json'), 'utf8')) as PreprocessorParams;

export const servedTrees = () => ensembleFromOnnx(readFileSync(fromRoot('models/survival/model.onnx'))).model;

/** Any passenger the API accepts, with common, French and rare titles. */
export const passengerArb: fc.Arbitrary<Passenger> = fc.record({
  pclass: fc.constantFrom(1 as const, 2 as const, 3 as const),
  sex: fc.constantFrom('male' as const, 'female' as const),
  age: fc.double({ min: 0, max: 100, noNaN: true }),
  sibsp: fc.integer({ min: 0, max: 10 }),
  parch: fc.integer({ min: 0, max: 10 }),
  embarked: fc.constantFrom('S' as const, 'C' as const, 'Q' as const),
  cabin_multiple: fc.constantFrom(0 as const, 1 as const),
  name_title: fc.constantFrom('Mr', 'Mrs', 'Miss', 'Master', 'Dr', 'Rev', 'Mlle', 'Countess'),
});
