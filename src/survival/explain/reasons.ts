// Shapley values in words: one line per passenger detail ("Sex: female", "Class: 3rd", "Fare (inferred): £7.90"),
// for the result page and the plots. A one-hot group (sex, class, port, title) is one line whose value is the sum of
// its features' Shapley values: their joint push on the prediction (the values add up, so the total is unchanged).
import { type Passenger, type PreprocessorParams, titleOf } from '../preprocess.js';

export interface Reason {
  /** What the detail is: "Sex", "Class", "Fare (inferred)". */
  label: string;
  /** The passenger's value, as a person would write it: "female", "3rd", "£7.90". */
  value: string;
  /** Push on the prediction in log-odds (positive raises survival). */
  shap: number;
  /** The model features summed into this line. */
  features: string[];
}

const ORDINAL: Record<number, string> = { 1: '1st', 2: '2nd', 3: '3rd' };
const PORT: Record<string, string> = { S: 'Southampton', C: 'Cherbourg', Q: 'Queenstown' };
const yesNo = (v: number | undefined) => (v ? 'yes' : 'no');
const pounds = (v: number | undefined) => `£${(v ?? 0).toFixed(2)}`;
const num = (v: number | undefined) => (v === undefined ? '' : String(Math.round(v * 100) / 100));

/**
 * Groups of model features and how to say them. `features` lists the model's names; a feature the model does not have
 * is skipped, and a model feature no group knows gets a line of its own under its own name.
 */
function groups(p: Passenger, params: PreprocessorParams, values: Record<string, number>) {
  const title = titleOf(params, p);
  return [
    { label: 'Sex', value: p.sex, features: ['Sex_female', 'Sex_male'] },
    { label: 'Class', value: ORDINAL[p.pclass] ?? String(p.pclass), features: ['Pclass_1', 'Pclass_2', 'Pclass_3'] },
    {
      label: 'Title',
      value: title.inferred ? `${title.title} (inferred)` : title.title,
      features: ['Title_Mr', 'Title_Mrs', 'Title_Miss', 'Title_Master', 'Title_Rare'],
    },
    { label: 'Age', value: num(p.age), features: ['Age'] },
    { label: 'Port', value: PORT[p.embarked] ?? p.embarked, features: ['Embarked_C', 'Embarked_Q', 'Embarked_S'] },
    { label: 'Siblings or spouses aboard', value: num(p.sibsp), features: ['SibSp'] },
    { label: 'Parents or children aboard', value: num(p.parch), features: ['Parch'] },
    { label: 'Family size', value: num(values.family_size), features: ['family_size'] },
    { label: 'Travelling alone', value: yesNo(values.is_alone), features: ['is_alone'] },
    { label: 'Fare (inferred)', value: pounds(values.inferred_fare), features: ['inferred_fare'] },
    { label: 'Fare per person (inferred)', value: pounds(values.fare_per_person), features: ['fare_per_person'] },
    { label: 'Several cabins', value: yesNo(values.cabin_multiple), features: ['cabin_multiple'] },
  ];
}

/** Every detail's push on the prediction, strongest first. */
export function reasons(p: Passenger, params: PreprocessorParams, shap: Record<string, number>, values: Record<string, number>): Reason[] {
  const out: Reason[] = [];
  const used = new Set<string>();
  for (const g of groups(p, params, values)) {
    const features = g.features.filter((f) => f in shap);
    if (!features.length) continue;
    features.forEach((f) => used.add(f));
    out.push({ label: g.label, value: g.value, shap: features.reduce((s, f) => s + shap[f]!, 0), features });
  }
  for (const [f, v] of Object.entries(shap)) if (!used.has(f)) out.push({ label: f, value: num(values[f]), shap: v, features: [f] });
  return out.sort((a, b) => Math.abs(b.shap) - Math.abs(a.shap));
}
