import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../src/testing/scripted-model';
import type { Random } from './random';

/** A fault the scripted model injected into one response. */
export type InjectedFault =
  { kind: 'status'; status: number; retryAfterMs?: number } | { kind: 'hang' } | { kind: 'malformed' };

/** Share of responses that are each kind of fault (the rest are the scripted turn). */
export const FAULT_MIX = { status: 0.3, hang: 0.1, malformed: 0.1 } as const;
/**
 * Transport faults (status or hang) one model call gets at most: attempts 1–4 of the policy's 6, leaving room for a
 * timeout the fault mix did not plan (a busy machine) without failing the run.
 */
export const MAX_FAULTS_PER_CALL = 3;

const STATUS_FAULTS: ReadonlyArray<{ status: number; retryAfter?: string }> = [
  { status: 429, retryAfter: '1' },
  { status: 429, retryAfter: '2' },
  { status: 429 },
  { status: 500 },
  { status: 502 },
  { status: 503 },
  { status: 503, retryAfter: '1' },
];

/** The model call a request belongs to: its attempts send the same messages, a new call sends more. */
const callKey = (request: RecordedRequest): string => JSON.stringify(request.messages);

/**
 * Wraps a script with random faults: per response, 30% an HTTP 429/5xx (some with retry-after), 10% a hang longer
 * than `hangMs` past the client's timeout, 10% a tool call whose arguments are not JSON (once per step, so the run
 * recovers with the step's proper call). Every injected fault is recorded in `faults` by request index.
 */
export function withFaults(
  script: (request: RecordedRequest) => { step: number; turn: ScriptedTurn },
  random: Random,
  faults: Map<number, InjectedFault>,
  hangMs: number,
): ScriptedResponder {
  const transportFaults = new Map<string, number>();
  const malformedSteps = new Set<number>();
  return (request, index) => {
    const { step, turn } = script(request);
    const key = callKey(request);
    const used = transportFaults.get(key) ?? 0;
    const roll = random.next();
    if (used < MAX_FAULTS_PER_CALL && roll < FAULT_MIX.status) {
      transportFaults.set(key, used + 1);
      const fault = random.pick(STATUS_FAULTS);
      faults.set(index, {
        kind: 'status',
        status: fault.status,
        ...(fault.retryAfter ? { retryAfterMs: Number(fault.retryAfter) * 1000 } : {}),
      });
      return {
        status: fault.status,
        errorMessage: `injected ${fault.status}`,
        ...(fault.retryAfter ? { retryAfter: fault.retryAfter } : {}),
      };
    }
    if (used < MAX_FAULTS_PER_CALL && roll < FAULT_MIX.status + FAULT_MIX.hang) {
      transportFaults.set(key, used + 1);
      faults.set(index, { kind: 'hang' });
      return { ...turn, delayMs: hangMs };
    }
    const [call, ...rest] = turn.toolCalls ?? [];
    if (call && !malformedSteps.has(step) && roll < FAULT_MIX.status + FAULT_MIX.hang + FAULT_MIX.malformed) {
      malformedSteps.add(step);
      faults.set(index, { kind: 'malformed' });
      // Cut off mid-object, the way a model's output is when it runs out of tokens.
      return { ...turn, toolCalls: [{ ...call, rawArguments: JSON.stringify(call.args).slice(0, -4) }, ...rest] };
    }
    return turn;
  };
}

/** Temporal's retry policy for model calls (docs/models.md, "Model errors"): 1 s doubling to 60 s, 6 attempts. */
export interface RetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
}

/** The policy `callModel` is scheduled with (src/workflow/activity-proxies.ts). */
export const MODEL_RETRY_POLICY: RetryPolicy = {
  initialIntervalMs: 1000,
  backoffCoefficient: 2,
  maximumIntervalMs: 60_000,
  maximumAttempts: 6,
};

/**
 * Slack for timer and clock granularity when comparing a retry's delay with the policy's. The recorder adds its own:
 * it stamps a request when its event loop gets to it, so a busy test process stamps one attempt late and the gap to
 * the next looks short by that lag (seen: 4,880 ms for a 5,000 ms backoff on a loaded 2-core machine).
 */
const TOLERANCE_MS = 100;

/** What the request log says about retries: how many there were, and every one that broke the policy. */
export interface RetryAudit {
  retries: number;
  violations: string[];
}

/**
 * Audits one run's model requests against the policy: consecutive requests with the same messages are attempts of
 * one call; each retry must come no sooner than the failed attempt's own duration (the client timeout, for a hang)
 * plus its delay (retry-after when the endpoint sent one, else the policy's backoff for that attempt), and no call
 * may take more than the policy's attempts.
 */
export function auditRetries(
  requests: readonly RecordedRequest[],
  faults: ReadonlyMap<number, InjectedFault>,
  policy: RetryPolicy,
  clientTimeoutMs: number,
  /** The recorder's longest event-loop delay while the requests came (see {@link TOLERANCE_MS}). */
  recorderLagMs = 0,
): RetryAudit {
  const violations: string[] = [];
  let retries = 0;
  let attempt = 1;
  for (let index = 1; index < requests.length; index++) {
    const previous = requests[index - 1];
    const current = requests[index];
    if (!previous || !current || callKey(previous) !== callKey(current)) {
      attempt = 1;
      continue;
    }
    retries++;
    const fault = faults.get(index - 1);
    const backoff = Math.min(
      policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1),
      policy.maximumIntervalMs,
    );
    const delay = fault?.kind === 'status' && fault.retryAfterMs !== undefined ? fault.retryAfterMs : backoff;
    const earliest = (fault?.kind === 'hang' ? clientTimeoutMs : 0) + delay;
    const gap = current.receivedAt - previous.receivedAt;
    if (gap < earliest - TOLERANCE_MS - recorderLagMs)
      violations.push(`request ${index + 1} came ${gap} ms after attempt ${attempt}, policy says ≥ ${earliest} ms`);
    attempt++;
    if (attempt > policy.maximumAttempts)
      violations.push(`request ${index + 1} is attempt ${attempt} of a call (policy: ${policy.maximumAttempts})`);
  }
  return { retries, violations };
}
