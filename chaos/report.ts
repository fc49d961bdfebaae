import { percentile, type RunRecord } from './measure';

/** One scenario's outcome: the table's row, what it noticed, and what went wrong (empty when it passed). */
export interface ScenarioReport {
  scenario: string;
  records: RunRecord[];
  /** Writes applied more than once for one logical entry; undefined where the scenario has no side-effect tool. */
  duplicateEffects: number | undefined;
  /** Short facts for the notes column, e.g. "kills: 17 model, 17 tool, 16 approval". */
  notes: string[];
  /** One line per broken expectation; the suite fails when any scenario has one. */
  failures: string[];
  /** Named counts behind the notes (faults injected, writes retried…), for tests to check the faults really happened. */
  counts: Record<string, number>;
}

const count = (records: RunRecord[], property: 'completed' | 'correct'): number =>
  records.filter((record) => record[property]).length;
const ms = (value: number): string => (Number.isNaN(value) ? '–' : String(Math.round(value)));

/** The Markdown table `npm run chaos` prints: one row per scenario. */
export function formatTable(reports: readonly ScenarioReport[]): string {
  const lines = [
    '| scenario | runs | completed | correct answers | duplicate effects | retries | p50 run ms | p99 run ms | notes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const report of reports) {
    const durations = report.records.map((record) => record.durationMs);
    const retries = report.records.reduce((sum, record) => sum + record.retries, 0);
    const cells = [
      report.scenario,
      report.records.length,
      count(report.records, 'completed'),
      count(report.records, 'correct'),
      report.duplicateEffects ?? 'n/a',
      retries,
      ms(percentile(durations, 50)),
      ms(percentile(durations, 99)),
      report.notes.join('; '),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Every failure of every scenario, prefixed with its scenario. */
export const allFailures = (reports: readonly ScenarioReport[]): string[] =>
  reports.flatMap((report) => report.failures.map((failure) => `${report.scenario}: ${failure}`));
