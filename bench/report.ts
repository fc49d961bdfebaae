/** The benchmark's outputs: the table on stdout and a three-panel SVG plot (P1, P2, P3). */
import type { HistoryRow } from './contenders/durable';
import type { ApprovalResult } from './contenders/durable-approvals';
import type { EventsResult } from './contenders/durable-events';
import type { ActionsRow } from './contenders/durable-actions';
import { engineActionsTotal } from '../src/replay';
import type { CheckpointRow } from './langgraph-protocol';
import type { LoopResult } from './measure';
import type { StartupResult } from './startup';

export interface BenchResults {
  machine: { date: string; cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  quick: boolean;
  p1?: Record<string, LoopResult>;
  p2?: Record<string, LoopResult>;
  p3?: { durable: HistoryRow[]; langgraph: CheckpointRow[] };
  p4?: ApprovalResult['latency'];
  p5?: ApprovalResult['parked'];
  p6?: StartupResult;
  p7?: EventsResult;
  p8?: ActionsRow[];
  /** Contenders (by label) that failed, and why: their figures are missing, the others are whole. */
  failed?: Record<string, string>;
}

const fixed = (value: number, digits = 1): string => value.toFixed(digits);
const kb = (bytes: number): string => fixed(bytes / 1024);

function table(title: string, header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    `### ${title}`,
    '',
    line(header),
    line(header.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...rows.map(line),
    '',
  ].join('\n');
}

/**
 * P1's or P2's "each round" column when they ran in several rounds (every contender ran as many); `perRound` formats
 * one round's ms per step.
 */
function roundColumn(
  results: Record<string, LoopResult>,
  perRound: (msPerStep: number) => string,
): { titleSuffix: string; header: string[]; cells: (result: LoopResult) => string[] } {
  const rounds = Object.values(results)[0]?.roundsMsPerStep?.length ?? 1;
  if (rounds <= 1) return { titleSuffix: '', header: [], cells: () => [] };
  return {
    titleSuffix: `; median of ${rounds} rounds`,
    header: ['each round'],
    cells: (result) => [(result.roundsMsPerStep ?? []).map(perRound).join(', ')],
  };
}

/** The figures as Markdown tables (the same text goes into docs/benchmarks.md). */
export function formatTables(results: BenchResults): string {
  const parts: string[] = [];
  const { p1, p2, p3, p4, p5, p6, p7, p8, failed } = results;
  if (p1) {
    // The in-process loop is the bound; when it failed, the column says so instead of measuring against another.
    const bound = Object.entries(p1).find(([name]) => name.includes('lower bound'))?.[1].msPerStep ?? NaN;
    const rounds = roundColumn(p1, (ms) => fixed(ms, 2));
    const rows = Object.entries(p1).map(([name, r]) => [
      name,
      fixed(r.msPerStep, 2),
      Number.isNaN(bound) ? '–' : `${fixed(r.msPerStep / bound)}×`,
      ...rounds.cells(r),
    ]);
    parts.push(
      table(
        `P1 orchestration cost per step (${Object.values(p1)[0]?.runs} agents × ${Object.values(p1)[0]?.steps} steps, one at a time${rounds.titleSuffix})`,
        ['contender', 'ms per step', 'vs lower bound', ...rounds.header],
        rows,
      ),
    );
  }
  if (p2) {
    const rounds = roundColumn(p2, (ms) => fixed(1000 / ms, 0));
    const rows = Object.entries(p2).map(([name, r]) => [
      name,
      fixed(r.stepsPerSecond, 0),
      fixed(r.seconds, 1),
      ...rounds.cells(r),
    ]);
    parts.push(
      table(
        `P2 throughput (${Object.values(p2)[0]?.runs} agents × ${Object.values(p2)[0]?.steps} steps, all at once${rounds.titleSuffix})`,
        ['contender', 'steps per second', 'wall seconds', ...rounds.header],
        rows,
      ),
    );
  }
  if (p3) {
    const langgraph = new Map(p3.langgraph.map((row) => [row.steps, row]));
    const rows = p3.durable.map((row) => {
      const lg = langgraph.get(row.steps);
      return [
        String(row.steps),
        kb(row.bytesPerStep),
        kb(row.bytes),
        String(row.runsInChain),
        kb(row.largestRunBytes),
        lg ? kb(lg.bytesPerStep) : '–',
        lg ? kb(lg.bytes) : '–',
      ];
    });
    parts.push(
      table(
        'P3 stored bytes per agent (KiB)',
        [
          'steps',
          'ours per step',
          'ours total',
          'runs in chain',
          'largest run',
          'LangGraph per step',
          'LangGraph total',
        ],
        rows,
      ),
    );
  }
  if (p4) {
    parts.push(
      table(
        `P4 approval decision → approved tool starts (${p4.decisions} decisions)`,
        ['p50 ms', 'p99 ms', 'mean ms'],
        [[fixed(p4.p50Ms), fixed(p4.p99Ms), fixed(p4.meanMs)]],
      ),
    );
  }
  if (p5) {
    parts.push(
      table(
        `P5 ${p5.runs} runs parked on approval (workflow cache bounded at ${p5.maxCachedWorkflows}${p5.workerNodeOptions ? `, worker NODE_OPTIONS ${p5.workerNodeOptions}` : ''})`,
        [
          'worker RSS before (after P4) MiB',
          'worker RSS parked MiB',
          'worker peak (VmHWM) MiB',
          'park s',
          'approve + finish s',
          'completed',
        ],
        [
          [
            fixed(p5.workerRssIdleMiB, 0),
            fixed(p5.workerRssParkedMiB, 0),
            fixed(p5.workerPeakMiB, 0),
            fixed(p5.parkSeconds, 0),
            fixed(p5.resumeSeconds, 0),
            `${p5.completed} / ${p5.runs}`,
          ],
        ],
      ),
    );
  }
  if (p6) {
    parts.push(
      table(
        'P6 `npm start` to the first step (Temporal CLI cached)',
        ['median s', 'samples'],
        [[fixed(p6.medianSeconds, 2), p6.secondsToFirstStep.map((s) => fixed(s, 2)).join(', ')]],
      ),
    );
  }
  if (p7) {
    const { latency, history } = p7;
    parts.push(
      table(
        `P7 event streams: latency over ${latency.events} live events, history of a ${history.steps}-step run`,
        ['p50 ms', 'p99 ms', 'mean ms', 'quiet run KiB', 'streamed + followed KiB', 'added per step bytes'],
        [
          [
            fixed(latency.p50Ms, 0),
            fixed(latency.p99Ms, 0),
            fixed(latency.meanMs, 1),
            kb(history.quietBytes),
            kb(history.streamedBytes),
            fixed(history.addedPerStep, 0),
          ],
        ],
      ),
    );
  }
  if (p8) {
    // Only the kinds some scenario used get a column.
    type Kind = keyof ActionsRow['actions'];
    const used = (Object.keys(p8[0]?.actions ?? {}) as Kind[]).filter((kind) =>
      p8.some((row) => row.actions[kind] > 0),
    );
    parts.push(
      table(
        `P8 engine actions per step (${p8[0]?.steps} tool steps and the answer: ${p8[0]?.iterations} iterations, ` +
          'each a model call; history counted as Temporal Cloud bills it, plus the queries and updates followers sent)',
        [
          'scenario',
          'actions',
          'per step',
          'with queries, per step',
          ...used,
          'follower queries',
          'follower updates sent',
        ],
        p8.map((row) => [
          row.scenario,
          String(engineActionsTotal(row.actions)),
          fixed(row.perStep, 2),
          fixed((engineActionsTotal(row.actions) + row.clientQueries + row.clientUpdates) / row.iterations, 2),
          ...used.map((kind) => String(row.actions[kind])),
          String(row.clientQueries),
          String(row.clientUpdates),
        ]),
      ),
    );
  }
  if (failed) {
    parts.push(
      table(
        'Failed (no figures)',
        ['contender', 'why'],
        Object.entries(failed).map(([label, why]) => [label, why.replace(/\|/g, '\\|')]),
      ),
    );
  }
  return parts.join('\n');
}

export function printTable(results: BenchResults): void {
  const m = results.machine;
  console.log(
    `durable-react-agent benchmarks${results.quick ? ' (--quick)' : ''}: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.date}\n`,
  );
  console.log(formatTables(results));
}

const COLORS = ['#8c8c8c', '#2f6fdf', '#13a38a', '#0b6e5c', '#8a5cc2', '#c25c9a', '#e8833a', '#b8561b', '#f2c14e'];
/** LangGraph's colour (its default durability), in the bars (its place in the contender order) and the P3 lines. */
const LANGGRAPH = 6;
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const TOP = 60;
const HEIGHT = 220;
const WIDTH = 340;

function bars(x: number, title: string, entries: Array<[string, number]>): string {
  const max = Math.max(...entries.map(([, value]) => value), 1e-9);
  const slot = WIDTH / Math.max(entries.length, 1);
  const parts = [`<text x="${x}" y="30" class="t">${escape(title)}</text>`];
  entries.forEach(([name, value], i) => {
    const h = Math.max((value / max) * HEIGHT, 1);
    const bx = x + i * slot + 6;
    parts.push(
      `<rect x="${bx}" y="${TOP + HEIGHT - h}" width="${slot - 12}" height="${h}" fill="${COLORS[i % COLORS.length]}"><title>${escape(name)}</title></rect>`,
    );
    parts.push(
      `<text x="${bx + (slot - 12) / 2}" y="${TOP + HEIGHT - h - 5}" class="v">${fixed(value, value < 10 ? 2 : 0)}</text>`,
    );
  });
  return parts.join('\n');
}

/** Bytes per step against steps, both on log scales: linear growth is a flat line, quadratic a rising one. */
function lines(x: number, p3: NonNullable<BenchResults['p3']>): string {
  const series: Array<[number, Array<[number, number]>]> = [
    [1, p3.durable.map((row) => [row.steps, row.bytesPerStep / 1024])],
    [LANGGRAPH, p3.langgraph.map((row) => [row.steps, row.bytesPerStep / 1024])],
  ];
  const log = (value: number): number => Math.log10(Math.max(value, 1));
  const maxX = Math.max(...series.flatMap(([, values]) => values.map(([steps]) => log(steps))), 1);
  const maxY = Math.max(...series.flatMap(([, values]) => values.map(([, kib]) => log(kib))), 1);
  const px = (steps: number): number => x + 10 + (log(steps) / maxX) * (WIDTH - 20);
  const py = (kib: number): number => TOP + HEIGHT - (log(kib) / Math.ceil(maxY)) * HEIGHT;
  const parts = [`<text x="${x}" y="30" class="t">P3 stored KiB per step, by run length in steps</text>`];
  for (let decade = 0; decade <= Math.ceil(maxY); decade++) {
    parts.push(`<line x1="${x}" x2="${x + WIDTH}" y1="${py(10 ** decade)}" y2="${py(10 ** decade)}" stroke="#ddd"/>`);
    parts.push(`<text x="${x + WIDTH + 4}" y="${py(10 ** decade) + 4}" class="u">${10 ** decade} KiB</text>`);
  }
  for (const [color, values] of series) {
    parts.push(
      `<polyline fill="none" stroke="${COLORS[color]}" stroke-width="2" points="${values.map(([s, k]) => `${px(s)},${py(k)}`).join(' ')}"/>`,
    );
    for (const [s, k] of values)
      parts.push(
        `<circle cx="${px(s)}" cy="${py(k)}" r="3" fill="${COLORS[color]}"><title>${s} steps: ${fixed(k)} KiB/step</title></circle>`,
      );
  }
  for (const [, values] of series.slice(0, 1)) {
    for (const [steps] of values)
      parts.push(`<text x="${px(steps)}" y="${TOP + HEIGHT + 16}" class="v">${steps}</text>`);
  }
  return parts.join('\n');
}

/** A self-contained SVG: P1 and P2 as bars per contender, P3 as bytes per step against run length. */
export function renderSvg(results: BenchResults): string {
  const panels: string[] = [];
  if (results.p1)
    panels.push(
      bars(
        20,
        'P1 ms per step (lower is better)',
        Object.entries(results.p1).map(([name, r]) => [name, r.msPerStep]),
      ),
    );
  if (results.p2)
    panels.push(
      bars(
        410,
        `P2 steps/s, ${Object.values(results.p2)[0]?.runs ?? 0} agents at once (higher is better)`,
        Object.entries(results.p2).map(([name, r]) => [name, r.stepsPerSecond]),
      ),
    );
  if (results.p3) panels.push(lines(800, results.p3));
  // The contenders in the bars' order: the legend names what each colour is, four to a row.
  const names = Object.keys(results.p1 ?? results.p2 ?? {});
  const legend = names.map((name, i) => {
    const [x, y] = [20 + (i % 4) * 300, 322 + Math.floor(i / 4) * 18];
    return `<rect x="${x}" y="${y}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/><text x="${x + 18}" y="${y + 10}" class="u">${escape(name)}</text>`;
  });
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="1220" height="380" viewBox="0 0 1220 380" font-family="sans-serif">',
    '<style>.t{font-size:14px;font-weight:bold}.v{font-size:11px;text-anchor:middle}.u{font-size:11px}</style>',
    '<rect width="1220" height="380" fill="white"/>',
    ...panels,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
