// Classification metrics for probabilities: accuracy, ROC AUC, log-loss, Brier score, calibration bins.

export interface Metrics {
  accuracy: number;
  roc_auc: number;
  log_loss: number;
  brier: number;
}

export function accuracy(y: number[], p: number[]): number {
  return y.filter((t, i) => (p[i]! >= 0.5 ? 1 : 0) === t).length / y.length;
}

/** Mann-Whitney form of ROC AUC, with ties counted as half. */
export function rocAuc(y: number[], p: number[]): number {
  const order = p.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(p.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]![1]] = rank;
    i = j + 1;
  }
  const pos = y.filter((t) => t === 1).length;
  const neg = y.length - pos;
  const sumPos = y.reduce((s, t, i) => s + (t === 1 ? ranks[i]! : 0), 0);
  return (sumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

export function logLoss(y: number[], p: number[]): number {
  const eps = 1e-15;
  return (
    -y.reduce((s, t, i) => {
      const q = Math.min(1 - eps, Math.max(eps, p[i]!));
      return s + (t === 1 ? Math.log(q) : Math.log(1 - q));
    }, 0) / y.length
  );
}

export function brier(y: number[], p: number[]): number {
  return y.reduce((s, t, i) => s + (p[i]! - t) ** 2, 0) / y.length;
}

export function allMetrics(y: number[], p: number[]): Metrics {
  return { accuracy: accuracy(y, p), roc_auc: rocAuc(y, p), log_loss: logLoss(y, p), brier: brier(y, p) };
}

export interface CalibrationBin {
  lower: number;
  upper: number;
  count: number;
  mean_predicted: number;
  observed_rate: number;
}

/** Reliability table in ten equal-width bins, and the expected calibration error over it. */
export function calibration(y: number[], p: number[], bins = 10): { bins: CalibrationBin[]; ece: number } {
  const out: CalibrationBin[] = [];
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    const lower = b / bins;
    const upper = (b + 1) / bins;
    const idx = p.map((v, i) => i).filter((i) => p[i]! >= lower && (p[i]! < upper || (b === bins - 1 && p[i]! <= 1)));
    if (idx.length === 0) continue;
    const meanP = idx.reduce((s, i) => s + p[i]!, 0) / idx.length;
    const rate = idx.reduce((s, i) => s + y[i]!, 0) / idx.length;
    out.push({ lower, upper, count: idx.length, mean_predicted: meanP, observed_rate: rate });
    ece += (idx.length / p.length) * Math.abs(meanP - rate);
  }
  return { bins: out, ece };
}
