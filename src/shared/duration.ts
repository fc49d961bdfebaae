const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `90`, `'90s'`, `'30m'`, `'24h'`, `'7d'` or `'500ms'` (a bare number is seconds) into milliseconds, or null. */
export function parseDuration(value: number | string): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value * 1000 : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/i.exec(value);
  if (!match) return null;
  const milliseconds = Number(match[1]) * (UNITS[(match[2] ?? '').toLowerCase()] ?? Number.NaN);
  return milliseconds > 0 && Number.isFinite(milliseconds) ? milliseconds : null;
}

/** Renders milliseconds for messages: `24h`, `90s`, `1500ms`. */
export function formatDuration(milliseconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (milliseconds >= size && milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}
