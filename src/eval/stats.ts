/** A rate with its 95% Wilson score interval: honest for small counts and for rates near 0 or 1. */
export interface Proportion {
  successes: number;
  total: number;
  /** null when there was nothing to count (e.g. no run met a tool error). */
  rate: number | null;
  low: number | null;
  high: number | null;
}

const Z = 1.96;

/** The rate of `successes` in `total` with its Wilson interval. */
export function proportion(successes: number, total: number): Proportion {
  if (total === 0) return { successes, total, rate: null, low: null, high: null };
  const p = successes / total;
  const denominator = 1 + (Z * Z) / total;
  const centre = (p + (Z * Z) / (2 * total)) / denominator;
  const margin = (Z * Math.sqrt((p * (1 - p)) / total + (Z * Z) / (4 * total * total))) / denominator;
  return { successes, total, rate: p, low: Math.max(0, centre - margin), high: Math.min(1, centre + margin) };
}

/** A mean with a normal-approximation 95% interval. */
export interface Mean {
  n: number;
  mean: number | null;
  low: number | null;
  high: number | null;
}

/** The mean of `values` and its interval (the interval is the mean itself for one value). */
export function mean(values: readonly number[]): Mean {
  const n = values.length;
  if (n === 0) return { n, mean: null, low: null, high: null };
  const average = values.reduce((sum, value) => sum + value, 0) / n;
  const variance = n > 1 ? values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (n - 1) : 0;
  const margin = Z * Math.sqrt(variance / n);
  return { n, mean: average, low: Math.max(0, average - margin), high: average + margin };
}
