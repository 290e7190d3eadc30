// Where explanation plots are drawn: in a worker thread (the service), or on the calling thread (tests that replace the
// canvas loader). Either way a canvas library that cannot load becomes the explain endpoint's DependencyError, and
// the thread that draws is the only one that loads the library (about 20 MB).
import { lazy } from '../../infra/lazy.js';
import { type CanvasModule, dependencyError, loadCanvas } from './draw.js';
import { type PlotInput, type PlotType, renderImportance, renderPlot } from './plots.js';

export interface Plotter {
  plot(type: PlotType, input: PlotInput): Promise<Uint8Array>;
  importance(importance: Record<string, number>, version: string): Promise<Uint8Array>;
}

/** What a drawing task answers: the PNG, or why the canvas library did not load (an Error does not cross threads whole). */
export type PlotResult = { png: Uint8Array } | { missing: string };

export type PlotRequest = { kind: 'plot'; type: PlotType; input: PlotInput } | { kind: 'importance'; importance: Record<string, number>; version: string };

/** Draws on the calling thread; loads the library on first use and retries a failed load on the next call. */
export function drawer(load: () => Promise<CanvasModule> = loadCanvas): (req: PlotRequest) => Promise<PlotResult> {
  const canvas = lazy(load);
  return async (req) => {
    let c: CanvasModule;
    try {
      c = await canvas();
    } catch (err) {
      return { missing: err instanceof Error ? err.message : String(err) };
    }
    const png = req.kind === 'plot' ? await renderPlot(c, req.type, req.input) : await renderImportance(c, req.importance, req.version);
    return { png };
  };
}

/** A plotter over a drawing function (`drawer()` here, or a worker task that runs one). */
export function plotter(draw: (req: PlotRequest) => Promise<PlotResult>): Plotter {
  const run = async (req: PlotRequest) => {
    const r = await draw(req);
    if ('missing' in r) throw dependencyError(new Error(r.missing));
    return r.png;
  };
  return {
    plot: (type, input) => run({ kind: 'plot', type, input }),
    importance: (importance, version) => run({ kind: 'importance', importance, version }),
  };
}
