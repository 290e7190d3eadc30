// The collection page's chart: movies discovered, refreshed and frozen per run, as an SVG drawn on the server (no
// client JavaScript). Every text in it is a number or a run id, and is escaped all the same.

export interface RunPoint {
  run_id: number;
  discovered: number;
  refreshed: number;
  frozen: number;
}

const SERIES = [
  { key: 'discovered', label: 'discovered', color: '#0b5cad' },
  { key: 'refreshed', label: 'refreshed', color: '#2e7d32' },
  { key: 'frozen', label: 'frozen', color: '#8e24aa' },
] as const;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Round tick step (1, 2 or 5 times a power of ten) giving about four ticks up to `max`. */
function tickStep(max: number): number {
  const raw = Math.max(max, 1) / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
}

/** Grouped bars, oldest run on the left. */
export function runChartSvg(points: RunPoint[], width = 820, height = 280): string {
  const left = 56;
  const right = 16;
  const top = 36;
  const bottom = 44;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...points.flatMap((p) => SERIES.map((s) => p[s.key])));
  const step = Math.max(1, Math.round(tickStep(max)));
  const yMax = Math.ceil(max / step) * step;
  const y = (v: number) => top + plotH - (v / yMax) * plotH;
  const group = plotW / Math.max(points.length, 1);
  const bar = Math.min(18, (group * 0.8) / SERIES.length);
  const parts: string[] = [];
  for (let t = 0; t <= yMax; t += step) {
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e0e0e0"/>`);
    parts.push(`<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#555">${t}</text>`);
  }
  points.forEach((p, i) => {
    const x0 = left + i * group + (group - bar * SERIES.length) / 2;
    SERIES.forEach((s, j) => {
      const v = p[s.key];
      const h = (v / yMax) * plotH;
      parts.push(
        `<rect x="${(x0 + j * bar).toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${(bar - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${s.color}"><title>run ${p.run_id}: ${v} ${s.label}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${(left + i * group + group / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle" font-size="12" fill="#555">#${esc(String(p.run_id))}</text>`,
    );
  });
  parts.push(`<line x1="${left}" x2="${width - right}" y1="${top + plotH}" y2="${top + plotH}" stroke="#888"/>`);
  parts.push(`<text x="${left + plotW / 2}" y="${height - 6}" text-anchor="middle" font-size="12" fill="#1a1a1a">collection run (oldest left)</text>`);
  SERIES.forEach((s, j) => {
    parts.push(`<rect x="${left + j * 130}" y="10" width="12" height="12" fill="${s.color}"/>`);
    parts.push(`<text x="${left + j * 130 + 18}" y="21" font-size="13" fill="#1a1a1a">${s.label}</text>`);
  });
  const summary = points.length ? `Movies discovered, refreshed and frozen in each of the last ${points.length} runs` : 'No collection runs yet';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="run-chart-title">` +
    `<title id="run-chart-title">${esc(summary)}</title>${parts.join('')}</svg>`
  );
}
