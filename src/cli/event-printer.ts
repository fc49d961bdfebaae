import type { EventsGap } from '../client/events';
import type { AgentEvent } from '../shared/events';
import { describeDecider } from '../shared/identity';
import { clip, visible } from './terminal-text';

const INDENT = '           ';

/** One event as the live trace on stderr shows it; undefined for events it leaves to other lines (start, end). */
export function formatEvent(event: AgentEvent | EventsGap): string | undefined {
  const line = describeEvent(event);
  return line === undefined ? undefined : visible(line);
}

function describeEvent(event: AgentEvent | EventsGap): string | undefined {
  switch (event.type) {
    case 'thought':
      // Many models call tools with no text at all; requireThought 'auto' runs such calls with an empty thought.
      return `[step ${event.iteration}] Thought: ${event.text.trim() === '' ? '(no thought given)' : clip(event.text)}`;
    case 'tool_call_requested':
      return `${INDENT}Action: ${event.tool} ${clip(event.args)} (${event.callId})`;
    case 'approval_pending':
      return `${INDENT}Waiting for a decision on ${event.callId} (${event.tool})`;
    case 'approval_decided':
      return `${INDENT}Decision on ${event.callId}: ${event.decision.kind}${event.decision.always ? ' (always)' : ''}${event.decision.by ? ` by ${describeDecider(event.decision.by)}` : ''}`;
    case 'tool_finished':
      return `${INDENT}Observation${event.isError ? ' (error)' : ''} (${event.callId}): ${clip(event.observation)}`;
    case 'clarification_asked':
      return `${INDENT}Question: ${clip(event.question)}`;
    case 'clarification_answered':
      return `${INDENT}Answer: ${clip(event.answer)}${event.by ? ` (by ${describeDecider(event.by)})` : ''}`;
    case 'budget_requested':
      return `${INDENT}Budget request ${event.requestId}: the ${event.limit} limit (${event.current}) was reached; raise it by ${event.suggested}?`;
    case 'budget_decided':
      return `${INDENT}Budget request ${event.requestId}: ${event.outcome}${event.amount !== undefined ? ` by ${event.amount}` : ''}${event.by ? ` (${describeDecider(event.by)})` : ''}`;
    case 'subagent_started':
      return `${INDENT}Delegated to ${event.agent}: run ${event.childWorkflowId}`;
    case 'summary':
      return `[summary] ${clip(event.text)}`;
    case 'critic_verdict':
      return `[critic] ${event.decision} (${event.confidence}): ${clip(event.reasoning)}`;
    case 'final_answer':
      return `[step ${event.iteration}] Final answer${event.forced ? ' (forced)' : ''}: ${clip(event.answer)}`;
    case 'run_continued':
      return `[run ${event.run}] continued as a new run (history stays small)`;
    case 'gap':
      return `[${event.missed} earlier events are no longer held]`;
    default:
      return undefined;
  }
}

/**
 * Prints a run's events as they arrive (the stream long-polls the run: no polling interval). `stop()` waits briefly
 * for the stream's own end (the run's last event), then abandons it.
 */
export function printEvents(
  follow: (signal: AbortSignal) => AsyncIterable<AgentEvent | EventsGap>,
  write: (line: string) => void,
): { stop(): Promise<void> } {
  const controller = new AbortController();
  const done = (async () => {
    for await (const event of follow(controller.signal)) {
      const line = formatEvent(event);
      if (line !== undefined) write(line);
    }
  })().catch(() => undefined); // a stream cut off by the run's failure or Ctrl-C: the result says what happened
  return {
    async stop() {
      const grace = new Promise((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([done, grace]);
      controller.abort();
      await done;
    },
  };
}
