import type { EventsGap } from './events';
import type { AgentEvent } from '../shared/events';
import type { ReActTrace } from '../shared/types';
import { eventsOfClosedRun } from './closed-run';
import { describeDecider } from '../shared/identity';
import { clipLine, visible } from '../common/terminal-text';

const INDENT = '           ';

/** One event as the live trace on stderr shows it; undefined for events it leaves to other lines (start, end). */
export function formatEvent(event: AgentEvent | EventsGap): string | undefined {
  const line = describeEvent(event);
  return line === undefined ? undefined : visible(line);
}

function describeEvent(event: AgentEvent | EventsGap): string | undefined {
  switch (event.type) {
    case 'thought':
      // Many models call tools with no text at all; `thoughts.require: 'auto'` runs such calls with an empty thought.
      return `[step ${event.iteration}] Thought: ${event.text.trim() === '' ? '(no thought given)' : clipLine(event.text)}`;
    case 'tool_call_requested':
      return `${INDENT}Action: ${event.tool} ${clipLine(event.args)} (${event.callId})`;
    case 'approval_pending':
      return event.reason === 'uncertain_effect'
        ? `${INDENT}Waiting for a decision on ${event.callId} (${event.tool} may have happened: run again, treat as done or skip)`
        : `${INDENT}Waiting for a decision on ${event.callId} (${event.tool})`;
    case 'approval_decided':
      return `${INDENT}Decision on ${event.callId}: ${event.decision.kind}${event.decision.always ? ' (always)' : ''}${event.decision.by ? ` by ${describeDecider(event.decision.by)}` : ''}`;
    case 'tool_finished':
      return `${INDENT}Observation${event.isError ? ' (error)' : ''} (${event.callId}): ${clipLine(event.observation)}`;
    case 'tool_progress': {
      const count =
        event.progress === undefined ? '' : ` ${event.progress}${event.total === undefined ? '' : `/${event.total}`}`;
      return `${INDENT}Progress (${event.callId}): ${event.status}${count}${event.message ? `: ${clipLine(event.message)}` : ''}`;
    }
    case 'clarification_asked':
      return `${INDENT}Question: ${clipLine(event.question)}`;
    case 'clarification_answered':
      return `${INDENT}Answer: ${clipLine(event.answer)}${event.by ? ` (by ${describeDecider(event.by)})` : ''}`;
    case 'budget_requested':
      return `${INDENT}Budget request ${event.requestId}: the ${event.limit} limit (${event.current}) was reached; raise it by ${event.suggested}?`;
    case 'budget_decided':
      return `${INDENT}Budget request ${event.requestId}: ${event.outcome}${event.amount !== undefined ? ` by ${event.amount}` : ''}${event.by ? ` (${describeDecider(event.by)})` : ''}`;
    case 'subagent_started':
      return `${INDENT}Delegated to ${event.agent}: run ${event.childWorkflowId}`;
    case 'summary':
      return `[summary] ${clipLine(event.text)}`;
    case 'critic_verdict':
      return `[critic] ${event.decision} (${event.confidence}): ${clipLine(event.reasoning)}`;
    case 'final_answer':
      return `[step ${event.iteration}] Final answer${event.forced ? ' (forced)' : ''}: ${clipLine(event.answer)}`;
    case 'run_continued':
      return `[run ${event.run}] continued as a new run (history stays small)`;
    case 'gap':
      return `[${event.missed} earlier events are no longer held]`;
    default:
      return undefined;
  }
}

/** What a printed event stands for, so a line the live trace already showed is not printed twice. */
function eventKey(event: AgentEvent | EventsGap): string | undefined {
  switch (event.type) {
    case 'thought':
    case 'final_answer':
      return `${event.type}:${event.iteration}`;
    case 'tool_call_requested':
    case 'tool_finished':
      return `${event.type}:${event.callId}`;
    default:
      return undefined;
  }
}

/** What the live trace showed when it stopped: whether it reached the run's end, and the steps' lines it printed. */
export interface PrintedTrace {
  ended: boolean;
  printed: ReadonlySet<string>;
}

/**
 * Prints a run's events as they arrive (the stream long-polls the run: no polling interval). `stop()` waits briefly
 * for the stream's own end (the run's last event), then abandons it: the stream's calls take the abort, so it ends
 * at once.
 */
export function printEvents(
  follow: (signal: AbortSignal) => AsyncIterable<AgentEvent | EventsGap>,
  write: (line: string) => void,
): { stop(): Promise<PrintedTrace> } {
  const controller = new AbortController();
  const printed = new Set<string>();
  let ended = false;
  const done = (async () => {
    for await (const event of follow(controller.signal)) {
      const line = formatEvent(event);
      if (line !== undefined) write(line);
      const key = eventKey(event);
      if (key !== undefined) printed.add(key);
      if (event.type === 'terminated') ended = true;
    }
  })().catch(() => undefined); // a stream cut off by the run's failure or Ctrl-C: the result says what happened
  return {
    async stop() {
      const grace = new Promise((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([done, grace]);
      controller.abort();
      await done;
      return { ended, printed };
    },
  };
}

/**
 * The lines of a finished run's steps and answer that a live trace cut off before the run's end did not print, from
 * the run's trace: the trace on stderr then always shows how the run ended.
 */
export function missedLines(trace: ReActTrace, shown: PrintedTrace): string[] {
  if (shown.ended) return [];
  const lines: string[] = [];
  for (const event of eventsOfClosedRun(trace, '', false, '')) {
    const key = eventKey(event);
    if (key === undefined || shown.printed.has(key)) continue;
    const line = formatEvent(event);
    if (line !== undefined) lines.push(line);
  }
  return lines;
}
