// Worker-thread task: draws an explanation plot (the PNG encoding is the CPU-heavy step of /api/explain). The canvas
// library and its font load once per worker.
import { type CanvasModule, loadCanvas } from './draw.js';
import { type PlotInput, type PlotType, renderPlot } from './plots.js';

let canvas: Promise<CanvasModule> | null = null;

export async function render(args: { type: PlotType; input: PlotInput }): Promise<Uint8Array> {
  canvas ??= loadCanvas();
  return renderPlot(await canvas, args.type, args.input);
}
