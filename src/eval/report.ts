import { summarize, TARGETS, type CriteriaSummary, type RunRecord, type RunScore } from './criteria';
import type { Mean, Proportion } from './stats';

const pct = (value: number | null) => (value === null ? 'n/a' : `${(value * 100).toFixed(0)}%`);
const interval = (p: Proportion | Mean) => (p.low === null ? '' : ` [${pct(p.low)}–${pct(p.high)}]`);
const mark = (meets: boolean | null) => (meets === null ? ' ' : meets ? '✓' : '✗');

/** The five criteria as lines of text: rate, count, 95% interval, target, met or not. */
export function formatSummary(summary: CriteriaSummary): string[] {
  const row = (name: string, p: Proportion, target: string, meets: boolean | null, unit: string) =>
    `${mark(meets)} ${name.padEnd(22)} ${pct(p.rate).padStart(5)}  ${`${p.successes}/${p.total} ${unit}`.padEnd(16)}` +
    `${interval(p).padEnd(14)} target ${target}`;
  const { efficiency } = summary;
  return [
    row('reasoning coherence', summary.coherence, '≥ 90% of steps', summary.meets.coherence, 'steps'),
    row('termination accuracy', summary.termination, '≥ 95% of runs', summary.meets.termination, 'runs'),
    row('trace completeness', summary.completeness, '100% of runs', summary.meets.completeness, 'runs'),
    row('error recovery', summary.recovery, '≥ 80% of runs', summary.meets.recovery, 'runs with errors'),
    `${mark(summary.meets.efficiency)} ${'iteration efficiency'.padEnd(22)} ${pct(efficiency.mean).padStart(5)}  ` +
      `${`of max, ${efficiency.n} runs`.padEnd(16)}${interval(efficiency).padEnd(14)} target < 50% of max_iterations`,
  ];
}

/** One line per task: its five criteria (counts and the termination interval) and how its runs ended. */
export function formatTasks(scores: readonly RunScore[]): string[] {
  const byTask = new Map<string, RunScore[]>();
  for (const score of scores) byTask.set(score.taskId, [...(byTask.get(score.taskId) ?? []), score]);
  const count = (p: Proportion) => (p.total === 0 ? '-' : `${p.successes}/${p.total}`);
  return [...byTask].map(([taskId, runs]) => {
    const task = summarize(runs);
    const reasons = [...new Set(runs.map((run) => run.terminationReason))].join(',');
    return (
      `${taskId.padEnd(20)} termination ${count(task.termination)}${interval(task.termination)}  ` +
      `coherent ${count(task.coherence)}  complete ${count(task.completeness)}  recovered ${count(task.recovery)}  ` +
      `iterations ${pct(task.efficiency.mean)}  (ended ${reasons}; expected ${runs[0]!.expectedReasons.join('|')})`
    );
  });
}

/** One row of the personality table: a personality's criteria and how many runs and replies it cost. */
export interface PersonalityRow {
  personality: string;
  summary: CriteriaSummary;
  lost: number;
  refused: number;
}

/**
 * The eval on personalities as one markdown table (it reads in a terminal and pastes into docs): each criterion met
 * or not with its rate and count, runs lost to errors, replies the agent refused.
 */
export function formatPersonalityTable(rows: readonly PersonalityRow[]): string[] {
  const cell = (p: Proportion, meets: boolean | null) =>
    p.total === 0 ? 'n/a' : `${mark(meets)} ${pct(p.rate)} (${p.successes}/${p.total})`;
  const lines = rows.map(({ personality, summary, lost, refused }) =>
    [
      personality,
      cell(summary.coherence, summary.meets.coherence),
      cell(summary.termination, summary.meets.termination),
      cell(summary.completeness, summary.meets.completeness),
      cell(summary.recovery, summary.meets.recovery),
      summary.efficiency.mean === null ? 'n/a' : `${mark(summary.meets.efficiency)} ${pct(summary.efficiency.mean)}`,
      `${lost}/${summary.runs}`,
      String(refused),
    ].join(' | '),
  );
  return [
    '| personality | reasoning coherence | termination accuracy | trace completeness | error recovery | iteration efficiency | runs lost to errors | replies refused |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...lines.map((line) => `| ${line} |`),
  ];
}

/** The JSON report: criteria, per-run scores, every step verdict (the judge's reasons included). */
export function reportJson(
  suite: string,
  summary: CriteriaSummary,
  records: readonly RunRecord[],
  scores: readonly RunScore[],
  extra: object,
) {
  return {
    suite,
    targets: TARGETS,
    summary,
    ...extra,
    runs: records.map((record, index) => ({
      taskId: record.task.id,
      workflowId: record.workflowId,
      score: scores[index],
      ...(record.error ? { error: record.error } : {}),
      finalAnswer: record.result?.finalAnswer ?? null,
      verdicts: record.verdicts,
    })),
  };
}

/** The five criteria as a bar chart with their intervals and targets (SVG, no dependencies). */
export function plotSvg(summary: CriteriaSummary, title: string): string {
  const bars: Array<[string, number | null, number | null, number | null, number]> = [
    ['coherence', summary.coherence.rate, summary.coherence.low, summary.coherence.high, TARGETS.coherence],
    ['termination', summary.termination.rate, summary.termination.low, summary.termination.high, TARGETS.termination],
    [
      'completeness',
      summary.completeness.rate,
      summary.completeness.low,
      summary.completeness.high,
      TARGETS.completeness,
    ],
    ['recovery', summary.recovery.rate, summary.recovery.low, summary.recovery.high, TARGETS.recovery],
    ['iterations used', summary.efficiency.mean, summary.efficiency.low, summary.efficiency.high, TARGETS.efficiency],
  ];
  const [width, height, left, top, chart] = [560, 300, 40, 40, 200];
  const y = (value: number) => top + chart - Math.min(1, value) * chart;
  const parts = bars.map(([name, rate, low, high, target], index) => {
    const x = left + 20 + index * 100;
    const bar =
      rate === null
        ? ''
        : `<rect x="${x}" y="${y(rate)}" width="50" height="${top + chart - y(rate)}" fill="#4a78c2"/>`;
    const whisker =
      low === null || high === null
        ? ''
        : `<line x1="${x + 25}" x2="${x + 25}" y1="${y(high)}" y2="${y(low)}" stroke="#222"/>`;
    const goal = `<line x1="${x - 5}" x2="${x + 55}" y1="${y(target)}" y2="${y(target)}" stroke="#c0392b" stroke-dasharray="4 2"/>`;
    const label = `<text x="${x + 25}" y="${top + chart + 18}" font-size="11" text-anchor="middle">${name}</text>`;
    const value = `<text x="${x + 25}" y="${top + chart + 32}" font-size="11" text-anchor="middle">${pct(rate)}</text>`;
    return bar + whisker + goal + label + value;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">` +
    `<text x="${left}" y="22" font-size="13">${title.replace(/[<&]/g, '')} (bars: rate; whiskers: 95% interval; dashed: target)</text>` +
    `<line x1="${left}" x2="${width - 10}" y1="${top + chart}" y2="${top + chart}" stroke="#888"/>` +
    `${parts.join('')}</svg>\n`
  );
}
