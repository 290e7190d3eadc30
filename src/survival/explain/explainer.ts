// Explanations: Shapley values from the served ONNX trees, and the plot saved to the images folder.
import { WorkersBusyError } from '../../infra/worker-pool.js';
import { AppError } from '../../infra/errors.js';
import { type Ensemble, ensembleFromOnnx, predictRaw } from '../../infra/tree-ensemble.js';
import { type Passenger, toFeatures } from '../preprocess.js';
import type { SurvivalService } from '../service.js';
import type { PlotInput, PlotType } from '../plots/plots.js';
import type { Plotter } from '../plots/plotter.js';
import type { ImageStore } from './image-store.js';
import { type Reason, reasons } from './reasons.js';
import { expectedValue, shapValues } from './treeshap.js';

export interface ExplanationValues {
  base_value: number;
  raw_output: number;
  shap_values: Record<string, number>;
  feature_values: Record<string, number>;
  top_features: Record<string, number>;
  /** The Shapley values in words, one line per passenger detail (one-hot groups summed), strongest first. */
  reasons: Reason[];
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const toBuffer = (png: Uint8Array) => Buffer.from(png.buffer, png.byteOffset, png.byteLength);

export class Explainer {
  private trees: { model: Ensemble; base: number; names: string[] } | null = null;
  private importancePng: Buffer | null = null;

  constructor(
    private readonly survival: SurvivalService,
    private readonly store: ImageStore,
    private readonly plotter: Plotter,
  ) {}

  /** Trees parsed once from the very bytes ONNX Runtime serves. */
  private ensemble() {
    if (this.trees) return this.trees;
    const bytes = this.survival.modelBytes;
    const params = this.survival.preprocessor;
    if (!bytes || !params) {
      throw new AppError(
        500,
        'ExplanationError',
        'The model is not loaded, so nothing can be explained',
        { exception: 'the model is not loaded' },
        this.survival.status().error ?? 'model not loaded',
      );
    }
    const { model } = ensembleFromOnnx(bytes);
    this.trees = { model, base: expectedValue(model), names: params.features };
    return this.trees;
  }

  values(passenger: Passenger): ExplanationValues {
    const { model, base, names } = this.ensemble();
    const x = toFeatures(this.survival.preprocessor!, passenger);
    const phi = shapValues(model, x);
    const shap_values = Object.fromEntries(names.map((n, i) => [n, r6(phi[i]!)]));
    const top = names
      .map((n, i) => [n, phi[i]!] as const)
      .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))
      .slice(0, 5);
    const feature_values = Object.fromEntries(names.map((n, i) => [n, r6(x[i]!)]));
    return {
      base_value: r6(base),
      raw_output: r6(predictRaw(model, x)),
      shap_values,
      feature_values,
      top_features: Object.fromEntries(top.map(([n, v]) => [n, r6(v)])),
      reasons: reasons(passenger, this.survival.preprocessor!, shap_values, feature_values).map((r) => ({ ...r, shap: r6(r.shap) })),
    };
  }

  async explain(passenger: Passenger, plotType: PlotType) {
    // Without trees there is nothing to explain: say so as an explanation error, not a prediction error.
    this.ensemble();
    const [prediction] = await this.survival.predict([passenger]);
    // Each step names what failed; the exception's text (paths, errno codes) is for the log and operators.
    let step = 'the Shapley values could not be computed';
    let values: ExplanationValues;
    let image: string;
    try {
      values = this.values(passenger);
      const input: PlotInput = {
        contributions: values.reasons.map((r) => ({ name: r.label, value: r.value, shap: r.shap })),
        baseValue: values.base_value,
        rawOutput: values.raw_output,
        probability: prediction!.probability,
      };
      step = 'the plot could not be drawn';
      const png = await this.plotter.plot(plotType, input);
      step = 'the image could not be stored';
      image = await this.store.save(toBuffer(png));
    } catch (err) {
      // A full plot queue is the service's back-pressure (503 with Retry-After), not an explanation error.
      if (err instanceof AppError || err instanceof WorkersBusyError) throw err;
      throw new AppError(500, 'ExplanationError', 'An error occurred while explaining the prediction', { exception: step }, (err as Error).message);
    }
    return {
      prediction: prediction!.prediction,
      probability: prediction!.probability,
      explanation_image_url: `/static/images/${image}`,
      plot_type: plotType,
      model_version: prediction!.model_version,
      ...values,
    };
  }

  async importancePlot(importance: Record<string, number>): Promise<Buffer> {
    this.importancePng ??= toBuffer(await this.plotter.importance(importance, this.survival.version));
    return this.importancePng;
  }
}
