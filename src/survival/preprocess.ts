// The one feature pipeline for training and serving: passenger -> named feature vector (no train/serve skew).

/** What the API knows about a passenger (the spec's input table, defaults applied). */
export interface Passenger {
  pclass: 1 | 2 | 3;
  sex: 'male' | 'female';
  age: number;
  sibsp: number;
  parch: number;
  embarked: 'S' | 'C' | 'Q';
  cabin_multiple: 0 | 1;
  /** Missing: inferred from sex and age (inferTitle). */
  name_title?: string;
}

export const TITLE_GROUPS = ['Mr', 'Mrs', 'Miss', 'Master', 'Rare'] as const;
export type TitleGroup = (typeof TITLE_GROUPS)[number];

/** French and abbreviated forms of the common titles; every other title is grouped as Rare. */
const TITLE_ALIASES: Record<string, TitleGroup> = {
  mr: 'Mr',
  mrs: 'Mrs',
  mme: 'Mrs',
  miss: 'Miss',
  mlle: 'Miss',
  ms: 'Miss',
  master: 'Master',
};

export function titleGroup(title: string): TitleGroup {
  const key = title.trim().replace(/\.$/, '').toLowerCase();
  // Own keys only: a title like "__proto__" or "constructor" is a rare title, not a property of every object.
  return Object.hasOwn(TITLE_ALIASES, key) ? TITLE_ALIASES[key]! : 'Rare';
}

/** Kaggle names look like "Braund, Mr. Owen Harris": the title sits between the comma and the first period. */
export function titleFromName(name: string): string | undefined {
  return /,\s*([^.,]+)\./.exec(name)?.[1]?.trim();
}

/** "C23 C25 C27" is three cabins. */
export function cabinMultiple(cabin: string | null | undefined): 0 | 1 {
  return cabin && cabin.trim().split(/\s+/).length > 1 ? 1 : 0;
}

/** The learned constants of the pipeline, saved as preprocessor.json beside the model. */
export interface PreprocessorParams {
  version: string;
  features: string[];
  /** Median ticket fare by class and family-size band: the API has no fare, so training uses this too. */
  fare_table: Record<string, Record<FamilyBand, number>>;
  /** Median age per title group, for rows without an age (training, and /predict rows from the CSV). */
  age_by_title: Record<TitleGroup, number>;
  embarked_mode: 'S' | 'C' | 'Q';
  /** The most frequent title group per sex and age band in training: the title of a passenger sent without one. */
  title_by_sex_age?: Record<'female' | 'male', Record<AgeBand, TitleGroup>>;
}

export const AGE_BANDS = ['0-12', '13-17', '18-24', '25+'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

export function ageBand(age: number): AgeBand {
  if (age < 13) return '0-12';
  if (age < 18) return '13-17';
  if (age < 25) return '18-24';
  return '25+';
}

/**
 * The title of a passenger sent without one: the training set's most frequent title for their sex and age band (for
 * a woman of 25 or more Mrs, younger Miss; for a boy under 13 Master, else Mr). Models whose preprocessor predates the
 * table use the same rule.
 */
export function inferTitle(params: PreprocessorParams, sex: 'male' | 'female', age: number): TitleGroup {
  const band = ageBand(age);
  const table = params.title_by_sex_age;
  if (table) return table[sex][band];
  if (sex === 'male') return band === '0-12' ? 'Master' : 'Mr';
  return band === '25+' ? 'Mrs' : 'Miss';
}

/** The title group the model sees for a passenger, and whether it was inferred. */
export function titleOf(params: PreprocessorParams, p: Passenger): { title: TitleGroup; inferred: boolean } {
  return p.name_title === undefined ? { title: inferTitle(params, p.sex, p.age), inferred: true } : { title: titleGroup(p.name_title), inferred: false };
}

export type FamilyBand = '1' | '2' | '3-4' | '5+';

export function familyBand(size: number): FamilyBand {
  if (size <= 1) return '1';
  if (size === 2) return '2';
  if (size <= 4) return '3-4';
  return '5+';
}

export const FEATURES = [
  'Age',
  'SibSp',
  'Parch',
  'family_size',
  'is_alone',
  'inferred_fare',
  'fare_per_person',
  'cabin_multiple',
  'Sex_female',
  'Sex_male',
  'Pclass_1',
  'Pclass_2',
  'Pclass_3',
  'Embarked_C',
  'Embarked_Q',
  'Embarked_S',
  ...TITLE_GROUPS.map((t) => `Title_${t}`),
] as const;

export type FeatureName = (typeof FEATURES)[number];

export interface Derived {
  family_size: number;
  inferred_fare: number;
}

export function inferFare(params: PreprocessorParams, pclass: number, familySize: number): number {
  const row = params.fare_table[String(pclass)];
  if (!row) throw new Error(`no fare for class ${pclass}`);
  return row[familyBand(familySize)];
}

export function derive(params: PreprocessorParams, p: Passenger): Derived {
  const family_size = p.sibsp + p.parch + 1;
  return { family_size, inferred_fare: inferFare(params, p.pclass, family_size) };
}

/** Feature vector in the order of params.features (which equals FEATURES for models this project trains). */
export function toFeatures(params: PreprocessorParams, p: Passenger): Float32Array {
  const { family_size, inferred_fare } = derive(params, p);
  const { title } = titleOf(params, p);
  const values: Record<FeatureName, number> = {
    Age: p.age,
    SibSp: p.sibsp,
    Parch: p.parch,
    family_size,
    is_alone: family_size === 1 ? 1 : 0,
    inferred_fare,
    fare_per_person: inferred_fare / family_size,
    cabin_multiple: p.cabin_multiple,
    Sex_female: p.sex === 'female' ? 1 : 0,
    Sex_male: p.sex === 'male' ? 1 : 0,
    Pclass_1: p.pclass === 1 ? 1 : 0,
    Pclass_2: p.pclass === 2 ? 1 : 0,
    Pclass_3: p.pclass === 3 ? 1 : 0,
    Embarked_C: p.embarked === 'C' ? 1 : 0,
    Embarked_Q: p.embarked === 'Q' ? 1 : 0,
    Embarked_S: p.embarked === 'S' ? 1 : 0,
    Title_Mr: title === 'Mr' ? 1 : 0,
    Title_Mrs: title === 'Mrs' ? 1 : 0,
    Title_Miss: title === 'Miss' ? 1 : 0,
    Title_Master: title === 'Master' ? 1 : 0,
    Title_Rare: title === 'Rare' ? 1 : 0,
  };
  const out = new Float32Array(params.features.length);
  params.features.forEach((name, i) => {
    const v = values[name];
    if (v === undefined) throw new Error(`preprocessor asks for unknown feature ${name}`);
    out[i] = v;
  });
  return out;
}

/** A Kaggle CSV row as the training script and POST /predict see it (missing values are null). */
export interface KaggleRow {
  Pclass: number;
  Name: string;
  Sex: 'male' | 'female';
  Age: number | null;
  SibSp: number;
  Parch: number;
  Fare?: number | null;
  Cabin: string | null;
  Embarked: 'S' | 'C' | 'Q' | null;
}

/** Kaggle row -> API passenger, imputing a missing age by title and a missing port by the mode, as in training. */
export function passengerFromKaggle(params: PreprocessorParams, row: KaggleRow): Passenger {
  const title = titleFromName(row.Name);
  return {
    pclass: row.Pclass as 1 | 2 | 3,
    sex: row.Sex,
    age: row.Age ?? params.age_by_title[title ? titleGroup(title) : inferTitle(params, row.Sex, params.age_by_title.Mr)],
    sibsp: row.SibSp,
    parch: row.Parch,
    embarked: row.Embarked ?? params.embarked_mode,
    cabin_multiple: cabinMultiple(row.Cabin),
    ...(title ? { name_title: title } : {}),
  };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Learns the pipeline's constants from training rows (fares are only read here, never at serving). */
export function fitPreprocessor(rows: KaggleRow[], version: string): PreprocessorParams {
  const fare_table: PreprocessorParams['fare_table'] = {};
  for (const cls of [1, 2, 3]) {
    const inClass = rows.filter((r) => r.Pclass === cls && r.Fare != null && r.Fare > 0);
    const classMedian = median(inClass.map((r) => r.Fare!));
    const bands = {} as Record<FamilyBand, number>;
    for (const band of ['1', '2', '3-4', '5+'] as FamilyBand[]) {
      const fares = inClass.filter((r) => familyBand(r.SibSp + r.Parch + 1) === band).map((r) => r.Fare!);
      // Thin cells fall back to the class median rather than trusting a handful of tickets.
      bands[band] = round2(fares.length >= 5 ? median(fares) : classMedian);
    }
    fare_table[String(cls)] = bands;
  }
  const age_by_title = {} as Record<TitleGroup, number>;
  const allAges = rows.filter((r) => r.Age != null).map((r) => r.Age!);
  for (const t of TITLE_GROUPS) {
    const ages = rows.filter((r) => r.Age != null && titleGroup(titleFromName(r.Name) ?? 'Mr') === t).map((r) => r.Age!);
    age_by_title[t] = ages.length ? median(ages) : median(allAges);
  }
  const ports = { S: 0, C: 0, Q: 0 };
  for (const r of rows) if (r.Embarked) ports[r.Embarked]++;
  const embarked_mode = (Object.entries(ports).sort((a, b) => b[1] - a[1])[0]![0] as 'S' | 'C' | 'Q') ?? 'S';
  const title_by_sex_age = {} as Record<'female' | 'male', Record<AgeBand, TitleGroup>>;
  for (const sex of ['female', 'male'] as const) {
    title_by_sex_age[sex] = {} as Record<AgeBand, TitleGroup>;
    for (const band of AGE_BANDS) {
      const counts = new Map<TitleGroup, number>(TITLE_GROUPS.map((t) => [t, 0]));
      for (const r of rows) {
        const t = titleFromName(r.Name);
        if (r.Sex === sex && r.Age != null && t && ageBand(r.Age) === band) counts.set(titleGroup(t), counts.get(titleGroup(t))! + 1);
      }
      // Ties go to the earlier group in TITLE_GROUPS order.
      title_by_sex_age[sex][band] = [...counts].reduce((best, c) => (c[1] > best[1] ? c : best))[0];
    }
  }
  return { version, features: [...FEATURES], fare_table, age_by_title, embarked_mode, title_by_sex_age };
}
