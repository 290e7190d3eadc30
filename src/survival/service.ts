// Survival predictions: loads model and preprocessor once, turns passengers into results with derived fields.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../infra/errors.js';
import { OnnxClassifier, loadPreprocessor } from './model.js';
import { type Passenger, type PreprocessorParams, derive, titleOf, toFeatures } from './preprocess.js';
import type { Prediction } from './schemas.js';

export type Confidence = 'low' | 'medium' | 'high';

/** The spec's bands: high at <= 0.3 or >= 0.7, medium at <= 0.45 or >= 0.55, low in between. */
export function confidenceOf(p: number): Confidence {
  if (p >= 0.7 || p <= 0.3) return 'high';
  if (p >= 0.55 || p <= 0.45) return 'medium';
  return 'low';
}

export function messageOf(prediction: 0 | 1, p: number): string {
  const pct = ((prediction === 1 ? p : 1 - p) * 100).toFixed(1);
  return prediction === 1 ? `Passenger likely survived with ${pct}% confidence` : `Passenger likely did not survive with ${pct}% confidence`;
}

export interface ModelCard {
  version: string;
  cv_metrics?: { mean: Record<string, number> };
  [key: string]: unknown;
}

export interface SurvivalStatus {
  ready: boolean;
  model_loaded: boolean;
  preprocessor_loaded: boolean;
  model_version: string | null;
  error?: string;
  card_error?: string;
}

export class SurvivalService {
  private classifier: OnnxClassifier | null = null;
  private params: PreprocessorParams | null = null;
  private loadError: string | null = null;
  card: ModelCard | null = null;
  /** Why the model card could not be read (predictions do not need it; /api/model does). */
  cardError: string | null = null;

  constructor(
    private readonly modelPath: string,
    private readonly preprocessorPath: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Loads both artefacts; a failure is recorded (and logged), never thrown, so the service still starts. */
  async load(): Promise<void> {
    const errors: string[] = [];
    try {
      this.params = await loadPreprocessor(this.preprocessorPath);
    } catch (err) {
      errors.push(`preprocessor: ${(err as Error).message}`);
    }
    try {
      const width = this.params?.features.length;
      if (width === undefined) throw new Error('cannot check the model without its preprocessor');
      this.classifier = await OnnxClassifier.load(this.modelPath, width);
    } catch (err) {
      errors.push(`model ${this.modelPath}: ${(err as Error).message}`);
    }
    const cardPath = join(dirname(this.modelPath), 'model-card.json');
    try {
      if (existsSync(cardPath)) this.card = JSON.parse(readFileSync(cardPath, 'utf8')) as ModelCard;
      else this.cardError = `${cardPath} does not exist`;
    } catch (err) {
      // A broken card must not stop the service: it only describes the model.
      this.cardError = `${cardPath}: ${(err as Error).message}`;
      this.log.warn({ error: this.cardError }, 'model card not readable');
    }
    this.loadError = errors.length ? errors.join('; ') : null;
    if (this.loadError) this.log.error({ error: this.loadError }, 'survival model not loaded');
    else this.log.info({ model: this.modelPath, version: this.version }, 'survival model loaded');
  }

  get version(): string {
    return this.card?.version ?? this.params?.version ?? 'unknown';
  }

  get preprocessor(): PreprocessorParams | null {
    return this.params;
  }

  /** The ONNX bytes that are being served (explanations read the trees from them). */
  get modelBytes(): Uint8Array | null {
    return this.classifier?.bytes ?? null;
  }

  status(): SurvivalStatus {
    return {
      ready: this.classifier !== null && this.params !== null,
      model_loaded: this.classifier !== null,
      preprocessor_loaded: this.params !== null,
      model_version: this.classifier ? this.version : null,
      ...(this.loadError ? { error: this.loadError } : {}),
      ...(this.cardError ? { card_error: this.cardError } : {}),
    };
  }

  async predict(passengers: Passenger[]): Promise<Prediction[]> {
    const { classifier, params } = this;
    if (!classifier || !params) {
      throw new AppError(
        500,
        'PredictionError',
        'An error occurred during prediction',
        { exception: this.classifier ? 'the preprocessor is not loaded' : 'the model is not loaded' },
        this.loadError ?? 'model not loaded',
      );
    }
    let probs: number[];
    try {
      probs = await classifier.probabilities(passengers.map((p) => toFeatures(params, p)));
    } catch (err) {
      throw new AppError(
        500,
        'PredictionError',
        'An error occurred during prediction',
        { exception: 'the model could not score the input' },
        (err as Error).message,
      );
    }
    return passengers.map((p, i) => {
      const probability = probs[i]!;
      const prediction = probability >= 0.5 ? 1 : 0;
      const { family_size, inferred_fare } = derive(params, p);
      const title = titleOf(params, p);
      return {
        prediction,
        probability: Math.round(probability * 1e6) / 1e6,
        confidence: confidenceOf(probability),
        inferred_fare,
        family_size,
        message: messageOf(prediction, probability),
        model_version: this.version,
        name_title: title.title,
        imputed: title.inferred ? ['name_title'] : [],
      };
    });
  }

  async close(): Promise<void> {
    await this.classifier?.dispose();
    this.classifier = null;
  }
}
