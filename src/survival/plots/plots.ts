// The three explanation plots (waterfall, force, bar), drawn with @napi-rs/canvas and encoded as PNG.
import type { Canvas } from '@napi-rs/canvas';
import { sigmoid } from '../../infra/math.js';
import { type Axis, type CanvasModule, COLORS, type Ctx, FONT, axis, drawTitle, drawXAxis, fmtSigned } from './draw.js';

/** One line of the explanation: a passenger detail in words ("Sex", "female") and its push in log-odds. */
export interface Contribution {
  name: string;
  value: string;
  shap: number;
}

export interface PlotInput {
  contributions: Contribution[];
  baseValue: number;
  rawOutput: number;
  probability: number;
}

export type PlotType = 'waterfall' | 'force' | 'bar';

const WIDTH = 900;
const ROW = 34;
const LABEL_W = 250;
const pct = (p: number) => `${(p * 100).toFixed(1)}%`;

/** Largest |value| first; beyond `keep`, the rest become one "N other features" row. */
function topWithOther(cs: Contribution[], keep: number): (Contribution & { other?: number })[] {
  const sorted = [...cs].sort((a, b) => Math.abs(b.shap) - Math.abs(a.shap));
  if (sorted.length <= keep) return sorted;
  const rest = sorted.slice(keep - 1);
  return [...sorted.slice(0, keep - 1), { name: `${rest.length} other details`, value: '', shap: rest.reduce((s, c) => s + c.shap, 0), other: rest.length }];
}

const label = (c: Contribution & { other?: number }) => (c.other || !c.value ? c.name : `${c.name}: ${c.value}`);

/**
 * Drawing surfaces, kept per height and reused: a surface's pixels are native memory the garbage collector does not
 * see, so a thread that draws many plots and allocates little else (a worker) would otherwise keep megabytes per plot.
 * A surface is checked out while its PNG is encoded, so concurrent renders never share one.
 */
const free = new Map<number, { canvas: CanvasModule; surfaces: Canvas[] }>();
let drawn = 0;

function page(canvas: CanvasModule, height: number): { ctx: Ctx; done: () => Promise<Buffer> } {
  let pool = free.get(height);
  if (!pool || pool.canvas !== canvas) {
    if (free.size >= 8) free.delete(free.keys().next().value!);
    pool = { canvas, surfaces: [] };
    free.set(height, pool);
  }
  const surface = pool.surfaces.pop() ?? canvas.createCanvas(WIDTH, height);
  const ctx = surface.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalAlpha = 1;
  ctx.setLineDash([]);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, WIDTH, height);
  return {
    ctx,
    done: async () => {
      try {
        // The asynchronous encoder: the synchronous toBuffer('image/png') keeps tens of kB of native memory per call.
        return await surface.encode('png');
      } finally {
        if (pool.surfaces.length < 2) pool.surfaces.push(surface);
        // Skia keeps what it shaped for every new string (each plot's numbers are new) until its caches are cleared.
        if (++drawn % 50 === 0) canvas.clearAllCache();
      }
    },
  };
}

function subtitle(input: PlotInput): string {
  return (
    `Base value E[f(x)] = ${input.baseValue.toFixed(2)} (p = ${pct(sigmoid(input.baseValue))}), ` +
    `model output f(x) = ${input.rawOutput.toFixed(2)} (p = ${pct(input.probability)}). Red raises survival, blue lowers it.`
  );
}

function waterfall(canvas: CanvasModule, input: PlotInput): Promise<Buffer> {
  const rows = topWithOther(input.contributions, 10);
  const top = 80;
  const height = top + rows.length * ROW + 70;
  const { ctx, done } = page(canvas, height);
  drawTitle(ctx, WIDTH, `Survival probability ${pct(input.probability)}: what each detail contributed`, subtitle(input));
  // Bottom row (smallest) starts at the base value; the top row ends at f(x).
  const starts: number[] = [];
  let cum = input.baseValue;
  for (let i = rows.length - 1; i >= 0; i--) {
    starts[i] = cum;
    cum += rows[i]!.shap;
  }
  const ax = axis(LABEL_W + 20, WIDTH - 40, [input.baseValue, input.rawOutput, ...starts, ...rows.map((r, i) => starts[i]! + r.shap)]);
  const bottom = top + rows.length * ROW;
  drawXAxis(ctx, ax, top - 8, bottom, 'model output (log-odds of survival)');
  for (const [v, name] of [
    [input.baseValue, 'E[f(x)]'],
    [input.rawOutput, 'f(x)'],
  ] as const) {
    ctx.setLineDash([4, 4]);
    ctx.strokeStyle = COLORS.muted;
    ctx.beginPath();
    ctx.moveTo(ax.toPx(v), top - 8);
    ctx.lineTo(ax.toPx(v), bottom);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = COLORS.muted;
    ctx.font = `12px ${FONT}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    ctx.fillText(`${name} = ${v.toFixed(2)}`, ax.toPx(v), top - 10);
  }
  rows.forEach((r, i) => {
    const y = top + i * ROW;
    const a = ax.toPx(starts[i]!);
    const b = ax.toPx(starts[i]! + r.shap);
    ctx.fillStyle = r.shap >= 0 ? COLORS.positive : COLORS.negative;
    ctx.fillRect(Math.min(a, b), y + 6, Math.max(2, Math.abs(b - a)), ROW - 12);
    ctx.font = `13px ${FONT}`;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = COLORS.text;
    ctx.textAlign = 'right';
    ctx.fillText(label(r), LABEL_W, y + ROW / 2, LABEL_W - 10);
    ctx.textAlign = r.shap >= 0 ? 'left' : 'right';
    ctx.fillText(fmtSigned(r.shap), r.shap >= 0 ? Math.max(a, b) + 5 : Math.min(a, b) - 5, y + ROW / 2);
  });
  return done();
}

function bar(canvas: CanvasModule, input: PlotInput): Promise<Buffer> {
  const rows = [...input.contributions].sort((a, b) => Math.abs(b.shap) - Math.abs(a.shap)).filter((c, i) => i < 12 || c.shap !== 0);
  const shown = rows.slice(0, 15);
  const top = 80;
  const height = top + shown.length * ROW + 70;
  const { ctx, done } = page(canvas, height);
  drawTitle(
    ctx,
    WIDTH,
    `Feature importance for this passenger (survival ${pct(input.probability)})`,
    'Magnitude of each Shapley value in log-odds; red raises survival, blue lowers it.',
  );
  const ax = axis(LABEL_W + 20, WIDTH - 60, [0, ...shown.map((r) => Math.abs(r.shap))], 0.02);
  ax.min = 0;
  const bottom = top + shown.length * ROW;
  drawXAxis(ctx, ax, top - 8, bottom, '|Shapley value| (log-odds)');
  shown.forEach((r, i) => {
    const y = top + i * ROW;
    ctx.fillStyle = r.shap >= 0 ? COLORS.positive : COLORS.negative;
    ctx.fillRect(ax.toPx(0), y + 6, Math.max(1, ax.toPx(Math.abs(r.shap)) - ax.toPx(0)), ROW - 12);
    ctx.font = `13px ${FONT}`;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = COLORS.text;
    ctx.textAlign = 'right';
    ctx.fillText(label(r), LABEL_W, y + ROW / 2, LABEL_W - 10);
    ctx.textAlign = 'left';
    ctx.fillText(fmtSigned(r.shap), ax.toPx(Math.abs(r.shap)) + 5, y + ROW / 2);
  });
  return done();
}

/** The force plot's layout: one bar of segments at `y`, three rows of labels under it, the axis below them. */
const FORCE = { height: 330, y: 110, h: 36, labelRows: 3, line: 18 } as const;
const FORCE_LABEL_TOP = FORCE.y + FORCE.h + 14;

interface ForceLabel {
  text: string;
  x: number;
  row: number;
  from: number;
}

function force(canvas: CanvasModule, input: PlotInput): Promise<Buffer> {
  const { ctx, done } = page(canvas, FORCE.height);
  drawTitle(ctx, WIDTH, `Forces on the prediction: survival ${pct(input.probability)}`, subtitle(input));
  const pos = input.contributions.filter((c) => c.shap > 0).sort((a, b) => b.shap - a.shap);
  const neg = input.contributions.filter((c) => c.shap < 0).sort((a, b) => a.shap - b.shap);
  const sumPos = pos.reduce((s, c) => s + c.shap, 0);
  const sumNeg = neg.reduce((s, c) => s + c.shap, 0);
  // Red pushes up from the left and ends at f(x); blue pushes down from the right and ends at f(x).
  const ax = axis(40, WIDTH - 40, [input.rawOutput - sumPos, input.rawOutput - sumNeg, input.baseValue]);
  drawXAxis(ctx, ax, 90, FORCE_LABEL_TOP + FORCE.labelRows * FORCE.line + 8, 'model output (log-odds of survival)');
  const labels = forceSegments(ctx, ax, input, pos, neg, sumPos);
  forceLabels(ctx, labels);
  forceMarkers(ctx, ax, input);
  forceLegend(ctx, sumPos, sumNeg);
  return done();
}

/**
 * Draws the segments and places their labels: level, under their segment, in the first of three rows where they do not
 * overlap a neighbour; a detail whose label fits nowhere is left to the waterfall and bar plots.
 */
function forceSegments(ctx: Ctx, ax: Axis, input: PlotInput, pos: Contribution[], neg: Contribution[], sumPos: number): ForceLabel[] {
  const { y, h } = FORCE;
  const rows: { start: number; end: number }[][] = Array.from({ length: FORCE.labelRows }, () => []);
  const labels: ForceLabel[] = [];
  ctx.font = `12px ${FONT}`;
  const segment = (c: Contribution, from: number, color: string) => {
    const a = ax.toPx(from);
    const b = ax.toPx(from + Math.abs(c.shap));
    ctx.fillStyle = color;
    ctx.fillRect(a, y, b - a, h);
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2;
    ctx.strokeRect(a, y, b - a, h);
    if (b - a < 6) return;
    const text = `${label(c)} (${fmtSigned(c.shap)})`;
    ctx.font = `12px ${FONT}`;
    const w = ctx.measureText(text).width;
    const x = Math.min(Math.max((a + b) / 2 - w / 2, 4), WIDTH - 4 - w);
    const row = rows.findIndex((taken) => taken.every((t) => x > t.end + 10 || x + w + 10 < t.start));
    if (row < 0) return;
    rows[row]!.push({ start: x, end: x + w });
    labels.push({ text, x, row, from: (a + b) / 2 });
  };
  let at = input.rawOutput - sumPos;
  for (const c of [...pos].reverse()) {
    segment(c, at, COLORS.positive);
    at += c.shap;
  }
  at = input.rawOutput;
  for (const c of neg) {
    segment(c, at, COLORS.negative);
    at += Math.abs(c.shap);
  }
  return labels;
}

/** White under each label so grid lines do not cross its text; a thin leader from the segment. */
function forceLabels(ctx: Ctx, labels: ForceLabel[]): void {
  const { y, h, line } = FORCE;
  for (const l of labels) {
    const ly = FORCE_LABEL_TOP + l.row * line;
    const w = ctx.measureText(l.text).width;
    ctx.strokeStyle = COLORS.muted;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(l.from, y + h + 2);
    ctx.lineTo(Math.min(Math.max(l.from, l.x), l.x + w), ly);
    ctx.stroke();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(l.x - 2, ly, w + 4, line - 2);
    ctx.fillStyle = COLORS.text;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(l.text, l.x, ly + 1);
  }
}

/** The arrow at f(x) with its value, and the dashed line at the base value. */
function forceMarkers(ctx: Ctx, ax: Axis, input: PlotInput): void {
  const { y, h } = FORCE;
  const fx = ax.toPx(input.rawOutput);
  ctx.fillStyle = COLORS.text;
  ctx.beginPath();
  ctx.moveTo(fx, y - 4);
  ctx.lineTo(fx - 7, y - 16);
  ctx.lineTo(fx + 7, y - 16);
  ctx.fill();
  ctx.font = `bold 13px ${FONT}`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(`f(x) = ${input.rawOutput.toFixed(2)}  (p = ${pct(input.probability)})`, Math.min(Math.max(fx, 120), WIDTH - 120), y - 18);
  const bx = ax.toPx(input.baseValue);
  ctx.strokeStyle = COLORS.muted;
  ctx.setLineDash([4, 4]);
  ctx.beginPath();
  ctx.moveTo(bx, y - 6);
  ctx.lineTo(bx, y + h + 6);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.font = `12px ${FONT}`;
  ctx.fillStyle = COLORS.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(`base ${input.baseValue.toFixed(2)}`, bx, y - 6);
}

function forceLegend(ctx: Ctx, sumPos: number, sumNeg: number): void {
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.fillStyle = COLORS.positive;
  ctx.fillText(`\u25A0 raises survival (${fmtSigned(sumPos)})`, 40, FORCE.height - 24);
  ctx.fillStyle = COLORS.negative;
  ctx.fillText(`\u25A0 lowers survival (${fmtSigned(sumNeg)})`, 300, FORCE.height - 24);
}

export function renderPlot(canvas: CanvasModule, type: PlotType, input: PlotInput): Promise<Buffer> {
  if (type === 'force') return force(canvas, input);
  if (type === 'bar') return bar(canvas, input);
  return waterfall(canvas, input);
}

/** Global importance: mean |Shapley value| per feature over the training set. */
export function renderImportance(canvas: CanvasModule, importance: Record<string, number>, version: string): Promise<Buffer> {
  const rows = Object.entries(importance).sort((a, b) => b[1] - a[1]);
  const top = 80;
  const height = top + rows.length * 26 + 70;
  const { ctx, done } = page(canvas, height);
  drawTitle(ctx, WIDTH, `Global feature importance (model ${version})`, 'Mean |Shapley value| over the training passengers, in log-odds.');
  const ax = axis(LABEL_W + 20, WIDTH - 60, [0, ...rows.map((r) => r[1])], 0.02);
  ax.min = 0;
  const bottom = top + rows.length * 26;
  drawXAxis(ctx, ax, top - 8, bottom, 'mean |Shapley value| (log-odds)');
  rows.forEach(([name, v], i) => {
    const y = top + i * 26;
    ctx.fillStyle = '#5b6bbf';
    ctx.fillRect(ax.toPx(0), y + 4, Math.max(1, ax.toPx(v) - ax.toPx(0)), 18);
    ctx.font = `13px ${FONT}`;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = COLORS.text;
    ctx.textAlign = 'right';
    ctx.fillText(name, LABEL_W, y + 13);
    ctx.textAlign = 'left';
    ctx.fillText(v.toFixed(3), ax.toPx(v) + 5, y + 13);
  });
  return done();
}
