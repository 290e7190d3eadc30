import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/infra/app-error.js';
import { loadCanvas } from '../../src/survival/plots/draw.js';
import { type PlotResult, drawer, plotter } from '../../src/survival/plots/plotter.js';

const input = {
  contributions: [
    { name: 'Sex', value: 'female', shap: 1.2 },
    { name: 'Class', value: '1', shap: 0.6 },
  ],
  baseValue: -0.4,
  rawOutput: 1.4,
  probability: 0.8,
};
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('plotter', () => {
  it('draws a PNG (signature bytes) for a plot and for the importance chart on the calling thread', async () => {
    const p = plotter(drawer(loadCanvas));
    expect([...(await p.plot('waterfall', input)).subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect([...(await p.importance({ Sex: 1.1, Class: 0.5 }, '1.0.0')).subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  });

  it('turns a canvas library that cannot load into DependencyError, and tries loading again on the next plot', async () => {
    let attempts = 0;
    const p = plotter(
      drawer(async () => {
        attempts++;
        throw new Error("Cannot find module '@napi-rs/canvas'");
      }),
    );
    const err = await p.plot('bar', input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe('DependencyError');
    expect((err as AppError).internal).toContain('@napi-rs/canvas');
    await p.plot('bar', input).catch(() => null);
    expect(attempts).toBe(2);
  });

  it('gives DependencyError for a worker that answers that the library is missing (plain data, not an Error)', async () => {
    const fromWorker = async (): Promise<PlotResult> => ({ missing: 'libskia.so: cannot open shared object file' });
    const err = await plotter(fromWorker)
      .importance({ Sex: 1 }, '1.0.0')
      .catch((e: unknown) => e);
    expect((err as AppError).kind).toBe('DependencyError');
    expect((err as AppError).internal).toBe('libskia.so: cannot open shared object file');
  });
});
