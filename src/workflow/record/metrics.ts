import { metricMeter } from '@temporalio/workflow';
import type { MetricCounter } from '@temporalio/common';
import type { TerminationReason } from '../../shared/termination-reasons';
import type { TokenUsage } from '../../shared/cost';

/**
 * The agent's own metrics, emitted from the workflow through the SDK's meter: they reach the worker's Prometheus
 * endpoint beside Temporal's runtime metrics and are not emitted again while a run replays. Pending decisions are
 * `agent_decision_requests_total - agent_decisions_total` (the runtime's meter has no up-down counter).
 *
 * Metrics are best-effort: an error from the meter is swallowed here, because a workflow task that throws is retried
 * forever and would stall the run over a number on a dashboard.
 */
let meters:
  | {
      iterations: MetricCounter;
      tokens: MetricCounter;
      toolCalls: MetricCounter;
      requests: MetricCounter;
      decisions: MetricCounter;
      finished: MetricCounter;
    }
  | undefined;

function record(emit: (counters: NonNullable<typeof meters>) => void): void {
  try {
    meters ??= {
      iterations: metricMeter.createCounter('agent_iterations', 'iterations', 'Model calls made by agent loops'),
      tokens: metricMeter.createCounter('agent_tokens', 'tokens', 'Tokens reported by the model, by kind'),
      toolCalls: metricMeter.createCounter('agent_tool_calls', 'calls', 'Tool calls by tool and outcome'),
      requests: metricMeter.createCounter(
        'agent_decision_requests',
        'requests',
        'Calls and questions that waited for a person',
      ),
      decisions: metricMeter.createCounter('agent_decisions', 'decisions', 'Decisions, answers and timeouts, by kind'),
      finished: metricMeter.createCounter('agent_runs_finished', 'runs', 'Finished runs by termination reason'),
    };
    emit(meters);
  } catch {
    // best-effort: see above
  }
}

/** One model call of the loop. */
export function countIteration(): void {
  record((m) => m.iterations.add(1));
}

/** Tokens of any model call (thinking, summaries, critic). */
export function countTokens(usage: TokenUsage): void {
  record((m) => {
    if (usage.promptTokens > 0) m.tokens.add(usage.promptTokens, { kind: 'prompt' });
    if (usage.completionTokens > 0) m.tokens.add(usage.completionTokens, { kind: 'completion' });
  });
}

/** Label of a tool the run does not offer: model-chosen names would give the metric unbounded cardinality. */
export const UNKNOWN_TOOL_LABEL = 'unknown';

/**
 * A tool call's outcome: ok, error (it failed), or refused (never ran: unknown, invalid, capped, rejected). Pass
 * undefined for a tool the run does not offer; it is labelled UNKNOWN_TOOL_LABEL.
 */
export function countToolCall(tool: string | undefined, outcome: 'ok' | 'error' | 'refused'): void {
  record((m) => m.toolCalls.add(1, { tool: tool ?? UNKNOWN_TOOL_LABEL, outcome }));
}

/** A call or question starts waiting for a person. */
export function countDecisionRequest(): void {
  record((m) => m.requests.add(1));
}

/** A pending call or question was settled: a decision kind, `answer`, or `timeout`. */
export function countDecision(kind: string): void {
  record((m) => m.decisions.add(1, { kind }));
}

/** A run finished with this termination reason (or failed). */
export function countFinished(reason: TerminationReason | 'failed'): void {
  record((m) => m.finished.add(1, { reason }));
}
