// Worker-thread task: draws an explanation plot (the PNG encoding is the CPU-heavy step of /api/explain). The canvas
// library and its font load once per worker, and only there.
import { type PlotRequest, type PlotResult, drawer } from './plotter.js';

const draw = drawer();

export function render(req: PlotRequest): Promise<PlotResult> {
  return draw(req);
}
