// The prediction form (GET/POST /prediction): fields, bounds and choices come from the API's own schema.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { AppError, issuesToErrors } from '../infra/errors.js';
import { PassengerFields, PassengerSchema } from '../survival/schemas.js';
import type { Reason } from '../survival/explain/reasons.js';

interface JsonProp {
  type?: string;
  minimum?: number;
  maximum?: number;
  enum?: (string | number)[];
  anyOf?: { const?: number | string }[];
  default?: string | number;
  description?: string;
  maxLength?: number;
}

export interface FieldSpec {
  name: string;
  label: string;
  kind: 'select' | 'number' | 'text';
  options?: { value: string; label: string }[];
  min?: number;
  max?: number;
  step?: string;
  required: boolean;
  defaultValue: string;
  hint?: string;
  maxLength?: number;
  placeholder?: string;
}

const LABELS: Record<string, string> = {
  pclass: 'Passenger class',
  sex: 'Sex',
  age: 'Age (years)',
  sibsp: 'Siblings or spouses aboard',
  parch: 'Parents or children aboard',
  embarked: 'Port of embarkation',
  cabin_multiple: 'Held several cabins',
  name_title: 'Title',
};

const OPTION_LABELS: Record<string, Record<string, string>> = {
  pclass: { '1': '1st class', '2': '2nd class', '3': '3rd class' },
  sex: { female: 'Female', male: 'Male' },
  embarked: { S: 'Southampton (S)', C: 'Cherbourg (C)', Q: 'Queenstown (Q)' },
  cabin_multiple: { '0': 'No', '1': 'Yes' },
};

/** Sensible starting values where the API has no default: an adult travelling alone from Southampton. */
const FORM_DEFAULTS: Record<string, string> = { pclass: '3', sex: 'female', age: '30', sibsp: '0', parch: '0', embarked: 'S' };

export function formFields(): FieldSpec[] {
  // The fields themselves, not the registered schema (which would come back as a $ref).
  const schema = z.toJSONSchema(z.object(PassengerFields), { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, JsonProp>;
    required?: string[];
  };
  return Object.entries(schema.properties).map(([name, p]) => {
    const choices = p.enum ?? p.anyOf?.map((a) => a.const).filter((c) => c !== undefined);
    const base = {
      name,
      label: LABELS[name] ?? name,
      required: schema.required?.includes(name) ?? false,
      defaultValue: p.default !== undefined ? String(p.default) : (FORM_DEFAULTS[name] ?? ''),
      ...(p.description ? { hint: p.description } : {}),
    };
    if (choices?.length) {
      return { ...base, kind: 'select' as const, options: choices.map((c) => ({ value: String(c), label: OPTION_LABELS[name]?.[String(c)] ?? String(c) })) };
    }
    if (p.type === 'number' || p.type === 'integer') {
      return { ...base, kind: 'number' as const, min: p.minimum, max: p.maximum, step: p.type === 'integer' ? '1' : 'any' };
    }
    return {
      ...base,
      kind: 'text' as const,
      ...(p.maxLength ? { maxLength: p.maxLength } : {}),
      ...(name === 'name_title' ? { placeholder: 'Unknown (inferred from sex and age)' } : {}),
    };
  });
}

/** Form strings -> API types: numeric fields become numbers, empty fields are left out (so "required" applies). */
export function formToInput(body: Record<string, unknown>, fields: FieldSpec[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = body[f.name];
    if (typeof raw !== 'string' || raw.trim() === '') continue;
    const numeric = f.kind === 'number' || (f.kind === 'select' && f.options!.every((o) => /^\d+$/.test(o.value)));
    out[f.name] = numeric && /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
  }
  return out;
}

/** Plain words for people (the JSON API keeps zod's precise messages). */
function humanMessage(field: FieldSpec | undefined, type: string, empty: boolean): string {
  if (empty) return 'This field is required.';
  if (!field) return 'This value is not accepted.';
  if (field.kind === 'select') return 'Choose one of the listed options.';
  if (field.kind === 'number') {
    const whole = field.step === '1' ? 'a whole number' : 'a number';
    return `Enter ${whole} from ${field.min} to ${field.max}.`;
  }
  return type === 'too_big' ? `Use at most ${field.maxLength} characters.` : 'Enter a value.';
}

async function predictionPages(app: FastifyInstance) {
  const fields = formFields();
  app.pages.addLink({ href: '/prediction', label: 'Survival' }, 'predict whether a Titanic passenger survived, with an explanation of why', () => {
    const card = app.survival.card;
    const m = card?.cv_metrics?.mean;
    const status = app.survival.status();
    if (!status.model_loaded) return ['Model not loaded: predictions are unavailable.'];
    return [
      `Model ${app.survival.version}: gradient-boosted trees served with ONNX Runtime.`,
      ...(m ? [`Cross-validated accuracy ${(m.accuracy! * 100).toFixed(1)}%, ROC AUC ${m.roc_auc!.toFixed(3)}.`] : []),
    ];
  });

  app.get('/prediction', { schema: { hide: true } }, (_request, reply) =>
    reply.page('prediction-form', 'Survival prediction', {
      fields,
      values: Object.fromEntries(fields.map((f) => [f.name, f.defaultValue])),
      errors: {},
    }),
  );

  app.post('/prediction', { schema: { hide: true }, config: { acceptsForm: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const values = Object.fromEntries(fields.map((f) => [f.name, typeof body[f.name] === 'string' ? body[f.name] : '']));
    const parsed = PassengerSchema.safeParse(formToInput(body, fields));
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const e of issuesToErrors(parsed.error.issues)) {
        const field = e.loc[0] ?? 'form';
        errors[field] ??= humanMessage(
          fields.find((f) => f.name === field),
          e.type,
          values[field] === '',
        );
      }
      reply.code(400);
      return reply.page('prediction-form', 'Survival prediction: please check the form', { fields, values, errors });
    }
    const passenger = parsed.data;
    try {
      const [result] = await app.survival.predict([passenger]);
      let explanation: { url: string; top: Reason[] } | null = null;
      let explanationError: string | null = null;
      try {
        const ex = await app.explainer.explain(passenger, 'waterfall');
        explanation = { url: ex.explanation_image_url, top: ex.reasons.slice(0, 5) };
      } catch (err) {
        explanationError = err instanceof AppError ? err.message : 'The explanation could not be drawn.';
      }
      return reply.page('prediction-result', result!.prediction ? 'Likely survived' : 'Likely did not survive', {
        passenger,
        result,
        explanation,
        explanationError,
        fields,
      });
    } catch (err) {
      request.log.error({ err }, 'prediction page failed');
      reply.code(500);
      return reply.page('error', 'Prediction unavailable', {
        message: 'The model is not available right now, so no prediction can be made. Please try again later.',
      });
    }
  });
}

export default fp(predictionPages, { name: 'prediction-pages', dependencies: ['pages', 'survival'] });
