// Reads the Kaggle Titanic CSV (RFC 4180, CRLF) into typed rows; empty fields become null.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { requireDataFile } from './datasets.js';
import type { KaggleRow } from '../../src/survival/preprocess.js';

export interface LabelledRow extends KaggleRow {
  PassengerId: number;
  Survived: number | null;
}

const num = (s: string | undefined) => (s === undefined || s.trim() === '' ? null : Number(s));

export function readTitanic(path: string): { rows: LabelledRow[]; sha256: string } {
  const text = readFileSync(requireDataFile(path));
  const records = parse<Record<string, string>>(text, { columns: true, skip_empty_lines: true });
  const rows = records.map((r) => {
    if (r.Sex !== 'male' && r.Sex !== 'female') throw new Error(`${path}: bad Sex "${r.Sex}"`);
    const embarked = r.Embarked?.trim() ? (r.Embarked.trim() as 'S' | 'C' | 'Q') : null;
    return {
      PassengerId: Number(r.PassengerId),
      Survived: num(r.Survived),
      Pclass: Number(r.Pclass),
      Name: r.Name ?? '',
      Sex: r.Sex,
      Age: num(r.Age),
      SibSp: Number(r.SibSp),
      Parch: Number(r.Parch),
      Fare: num(r.Fare),
      Cabin: r.Cabin?.trim() ? r.Cabin : null,
      Embarked: embarked,
    } satisfies LabelledRow;
  });
  return { rows, sha256: createHash('sha256').update(text).digest('hex') };
}
