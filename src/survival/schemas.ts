// zod schemas of the survival API: they validate requests, type the handlers and generate the OpenAPI document.
import { z } from 'zod';

export const PassengerFields = {
  pclass: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: 'Passenger class must be the number 1, 2 or 3' }).describe('passenger class'),
  sex: z.enum(['male', 'female']).describe('gender'),
  age: z.number().min(0).max(100).describe('age in years'),
  sibsp: z.int().min(0).max(10).describe('siblings/spouses aboard'),
  parch: z.int().min(0).max(10).describe('parents/children aboard'),
  embarked: z.enum(['S', 'C', 'Q']).describe('embarkation port: S = Southampton, C = Cherbourg, Q = Queenstown'),
  cabin_multiple: z
    .union([z.literal(0), z.literal(1)])
    .default(0)
    .describe('1 when the passenger held several cabins'),
  name_title: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .optional()
    .describe(
      "title from the name (Mr, Mrs, Miss, Master, ...); unknown titles join the model's rare-title group; missing: inferred from sex and age (the most frequent title of that sex and age band in training), and listed in `imputed`",
    ),
};

export const PassengerSchema = z.strictObject(PassengerFields).meta({ id: 'Passenger' });

export const PredictionSchema = z
  .object({
    prediction: z.union([z.literal(0), z.literal(1)]).describe('0 = did not survive, 1 = survived'),
    probability: z.number().min(0).max(1).describe('survival probability'),
    confidence: z.enum(['low', 'medium', 'high']),
    inferred_fare: z.number().describe('fare inferred from class and family size'),
    family_size: z.int().describe('sibsp + parch + 1'),
    message: z.string(),
    model_version: z.string(),
    name_title: z.string().describe('the title group the model used: Mr, Mrs, Miss, Master or Rare'),
    imputed: z.array(z.string()).describe('input fields that were missing and inferred (name_title: from sex and age)'),
  })
  .meta({ id: 'Prediction' });

export const BatchRequestSchema = z
  .strictObject({
    passengers: z.array(PassengerSchema).min(1).max(1000).describe('1 to 1,000 passengers'),
  })
  .meta({ id: 'BatchRequest' });

export const BatchResponseSchema = z
  .object({
    model_version: z.string(),
    count: z.int(),
    predictions: z.array(PredictionSchema).describe('one result per passenger, in order'),
  })
  .meta({ id: 'BatchResponse' });

/**
 * CSV cells arrive as numbers, numeric strings, empty strings or null; the last two mean "missing".
 * The union stays on the input side, so the OpenAPI document shows every accepted form.
 */
const csvNumber = <T extends z.ZodType<unknown, number | null>>(target: T) =>
  z
    .union([z.number(), z.string().regex(/^\s*(-?\d+(\.\d+)?)?\s*$/, 'expected a number'), z.null()])
    .transform((v) => (v === null || (typeof v === 'string' && v.trim() === '') ? null : Number(v)))
    .pipe(target);
const optionalText = z.union([z.string().max(200), z.null()]).optional();

export const KagglePassengerSchema = z
  .strictObject({
    PassengerId: csvNumber(z.int().min(0).nullable()).optional(),
    Survived: z.unknown().optional().describe('ignored (present in the training CSV)'),
    Pclass: csvNumber(z.union([z.literal(1), z.literal(2), z.literal(3)])),
    Name: z.string().min(1).max(200).describe('"Surname, Title. Given names": the title is taken from it'),
    Sex: z.enum(['male', 'female']),
    Age: csvNumber(z.number().min(0).max(100).nullable()).optional().describe('missing: imputed by title'),
    SibSp: csvNumber(z.int().min(0).max(10)),
    Parch: csvNumber(z.int().min(0).max(10)),
    Ticket: optionalText.describe('ignored'),
    Fare: csvNumber(z.number().nullable()).optional().describe('ignored: the model uses the fare inferred from class and family size'),
    Cabin: optionalText.describe('several cabins ("C23 C25") set cabin_multiple'),
    Embarked: z
      .union([z.enum(['S', 'C', 'Q']), z.literal(''), z.null()])
      .transform((v) => v || null)
      .optional()
      .describe('missing: the most common port, S'),
  })
  .meta({ id: 'KagglePassenger' });

export const KagglePredictionSchema = PredictionSchema.extend({
  PassengerId: z.int().nullable(),
  name_title: z.string().describe('title read from Name (or, when Name has none, the inferred title group)'),
  imputed: z.array(z.string()).describe('fields that were missing and filled in as in training'),
}).meta({ id: 'KagglePrediction' });

export type PassengerInput = z.output<typeof PassengerSchema>;
export type Prediction = z.output<typeof PredictionSchema>;

const featureMap = (what: string) => z.record(z.string(), z.number()).describe(what);

export const ExplanationValuesSchema = z
  .object({
    base_value: z.number().describe('expected model output over the training passengers, in log-odds'),
    raw_output: z.number().describe('model output for this passenger, in log-odds (base_value + sum of shap_values)'),
    shap_values: featureMap('Shapley value of every feature (log-odds); positive raises survival'),
    feature_values: featureMap('the value of each feature as the model saw it'),
    top_features: featureMap('the five largest Shapley values by magnitude, signed'),
    reasons: z
      .array(
        z.object({
          label: z.string().describe('the passenger detail, e.g. "Sex", "Class", "Fare (inferred)"'),
          value: z.string().describe('its value in words, e.g. "female", "3rd", "£7.90"'),
          shap: z.number().describe('push on the prediction in log-odds; for a one-hot group (sex, class, port, title) the sum of its features'),
          features: z.array(z.string()).describe('the model features summed into this line'),
        }),
      )
      .describe('the Shapley values in words, one line per passenger detail, strongest first'),
  })
  .meta({ id: 'ExplanationValues' });

export const PredictRequestSchema = z
  .strictObject({
    ...PassengerFields,
    explain: z.boolean().default(false).describe('also return the Shapley values (no image)'),
  })
  .meta({ id: 'PredictRequest' });

export const PredictResponseSchema = PredictionSchema.extend({
  explanation: ExplanationValuesSchema.optional().describe('present when explain is true'),
}).meta({ id: 'PredictResponse' });

export const PlotTypeSchema = z.enum(['waterfall', 'force', 'bar']);

export const ExplainRequestSchema = z
  .strictObject({
    ...PassengerFields,
    plot_type: PlotTypeSchema.default('waterfall').describe('waterfall (default), force or bar'),
  })
  .meta({ id: 'ExplainRequest' });

export const ExplainResponseSchema = ExplanationValuesSchema.extend({
  prediction: z.union([z.literal(0), z.literal(1)]),
  probability: z.number(),
  explanation_image_url: z.string().describe('/static/images/shap_explanation_<YYYYMMDD>_<HHMMSS>_<unique>.png'),
  plot_type: PlotTypeSchema,
  model_version: z.string(),
}).meta({ id: 'ExplainResponse' });

export const ModelInfoSchema = z
  .object({
    card: z.record(z.string(), z.unknown()).describe('the model card: data, features, hyper-parameters, metrics'),
    global_importance: featureMap('mean |Shapley value| per feature over the training set'),
    importance_image_url: z.string(),
  })
  .meta({ id: 'ModelInfo' });
