// Summaries of repeated measurements: the median of several runs, with min and max.

/** The q-quantile (0…1) of numbers, by linear interpolation between closest ranks. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (values) => quantile(values, 0.5);

/** `{ median, min, max, runs }` of one figure measured once per run. */
export function summarize(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}

/** Geometric mean: the fair average of ratios. */
export function geomean(values) {
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
}
