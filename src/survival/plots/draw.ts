// Drawing basics shared by the explanation plots: the canvas library (loaded lazily), fonts, colours, axes.
import { createRequire } from 'node:module';
import type * as Canvas from '@napi-rs/canvas';
import { AppError } from '../../infra/app-error.js';

export type CanvasModule = typeof Canvas;
export type Ctx = Canvas.SKRSContext2D;

export const COLORS = {
  positive: '#d6204e', // raises survival (red, as in SHAP plots)
  negative: '#1e88e5', // lowers survival (blue)
  text: '#1a1a1a',
  muted: '#555555',
  grid: '#e3e3e3',
  axis: '#333333',
};

export const FONT = 'PlotSans';

const require = createRequire(import.meta.url);

/** Loads @napi-rs/canvas and registers the bundled DejaVu Sans, so plots look the same on any machine. */
export async function loadCanvas(): Promise<CanvasModule> {
  const canvas = await import('@napi-rs/canvas');
  if (!canvas.GlobalFonts.has(FONT)) {
    for (const weight of ['400', '700']) {
      const file = require.resolve(`@fontsource/dejavu-sans/files/dejavu-sans-latin-${weight}-normal.woff2`);
      canvas.GlobalFonts.registerFromPath(file, FONT);
    }
  }
  return canvas;
}

/** The explain endpoint's 500 when the plotting library is absent (the prediction endpoints do not need it). */
export function dependencyError(err: unknown): AppError {
  return new AppError(
    500,
    'DependencyError',
    'The plotting library @napi-rs/canvas is not installed or cannot load; install it with `npm install @napi-rs/canvas` ' +
      '(it ships prebuilt binaries for Linux, macOS and Windows) and restart the service.',
    { exception: 'the plotting library could not be loaded' },
    err instanceof Error ? err.message : String(err),
  );
}

/** 1-2-5 tick spacing covering [min, max]. */
export function niceTicks(min: number, max: number, target = 6): number[] {
  const span = max - min || 1;
  const raw = span / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Math.round(t / step) * step);
  return ticks;
}

export function fmtSigned(v: number, digits = 2): string {
  return `${v >= 0 ? '+' : '\u2212'}${Math.abs(v).toFixed(digits)}`;
}

export function fmtValue(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2).replace(/\.?0+$/, '');
}

export interface Axis {
  x0: number;
  x1: number;
  min: number;
  max: number;
  toPx(v: number): number;
}

export function axis(x0: number, x1: number, values: number[], padFraction = 0.08): Axis {
  let min = Math.min(...values);
  let max = Math.max(...values);
  const pad = (max - min || 1) * padFraction;
  min -= pad;
  max += pad;
  return { x0, x1, min, max, toPx: (v) => x0 + ((v - min) / (max - min)) * (x1 - x0) };
}

/** Vertical grid lines, tick labels and an axis title under the plot area. */
export function drawXAxis(ctx: Ctx, ax: Axis, top: number, bottom: number, title: string): void {
  ctx.font = `12px ${FONT}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of niceTicks(ax.min, ax.max)) {
    const x = ax.toPx(t);
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, bottom);
    ctx.stroke();
    ctx.fillStyle = COLORS.muted;
    ctx.fillText(fmtValue(Math.round(t * 1000) / 1000), x, bottom + 6);
  }
  ctx.strokeStyle = COLORS.axis;
  ctx.beginPath();
  ctx.moveTo(ax.x0, bottom);
  ctx.lineTo(ax.x1, bottom);
  ctx.stroke();
  ctx.fillStyle = COLORS.text;
  ctx.font = `13px ${FONT}`;
  ctx.fillText(title, (ax.x0 + ax.x1) / 2, bottom + 26);
}

export function drawTitle(ctx: Ctx, width: number, title: string, subtitle: string): void {
  ctx.fillStyle = COLORS.text;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.font = `bold 18px ${FONT}`;
  ctx.fillText(title, 24, 18);
  ctx.font = `13px ${FONT}`;
  ctx.fillStyle = COLORS.muted;
  ctx.fillText(subtitle, 24, 44, width - 48);
}
