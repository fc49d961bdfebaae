import { bool, jsonObject, optional, strict, text, variants, type Check, type ShapeOf } from './payload-check';
import type { PendingBudget } from './budget';
import { deciderFields, type Decider } from './identity';
import {
  signatureEnvelopeCheck,
  verdictCheck,
  SIGNATURE_FIELD,
  VERDICT_FIELD,
  type SignatureRefusal,
} from './signed-decision';

/**
 * A declarative rule over a call's arguments deciding whether a person must confirm it. JSON, so the workflow can
 * evaluate it deterministically and operators can read it.
 */
export type ConfirmationRule =
  | { when: 'path_outside'; arg: string; folder: string }
  | { when: 'greater_than'; arg: string; value: number }
  | { when: 'equals'; arg: string; value: string | number | boolean }
  | { when: 'matches'; arg: string; pattern: string; flags?: string }
  | { anyOf: readonly ConfirmationRule[] }
  | { allOf: readonly ConfirmationRule[] };

/** When a tool's calls wait for a person: always, never, or when a rule over the arguments holds. */
export type ConfirmationPolicy = 'always' | 'never' | ConfirmationRule;

/** A tool call waiting for a decision. */
export interface PendingCall {
  callId: string;
  tool: string;
  args: unknown;
  /** Send it back with a decision to make sure the decision is about these exact arguments. */
  argsHash: string;
  question: string;
  requestedAt: string;
  deadline: string;
  /** Who may decide it (`approvers` of the tool and the run): identities or `role:<name>`; absent when anyone may. */
  approvers?: string[];
  /** JSON Schema of the tool's arguments, for an editor to check an edit before sending it (absent from older workers). */
  parameters?: Record<string, unknown>;
  /**
   * Why the call waits: absent for a confirmation before it runs; `uncertain_effect` for a call that may already have
   * had its effect (its outcome was lost and the tool's `reconcile` could not tell). Then approve = run it again,
   * respond = treat it as done with the given result, reject = skip it; edit is refused.
   */
  reason?: 'uncertain_effect';
  /** For `uncertain_effect`: what the tool's `reconcile` said about it (its `detail`), when it said anything. */
  detail?: string;
}

/** A question the model asked the user (or an MCP server's form, see `form`), waiting for an answer. */
export interface PendingQuestion {
  callId: string;
  question: string;
  requestedAt: string;
  deadline: string;
  /**
   * Set when the question is an MCP server's form (elicitation) during a call: the answer is its content as a JSON
   * object matching `schema`, or `decline` or `cancel`.
   */
  form?: QuestionForm;
  /**
   * The tool whose call asks the question (an MCP server's form or sampling request): its approvers may answer, and
   * its `approvals.requireSigned` rule holds for the answer.
   */
  tool?: string;
  /** Who may answer (the approvers of `tool`); absent when anyone may. */
  approvers?: string[];
}

/** An MCP server's form, as the person is asked to fill it in. */
export interface QuestionForm {
  server: string;
  message: string;
  /** The JSON Schema of the answer's content (a flat object of strings, numbers, booleans and enums, in MCP). */
  schema?: Record<string, unknown>;
  /** Instead of a schema: the web page the person is to open (an http(s) URL); the answer is accept, decline or cancel. */
  url?: string;
}

/** A subagent running as a child workflow: its own calls and questions wait under its workflow ID. */
export interface RunningDelegation {
  callId: string;
  agent: string;
  workflowId: string;
}

/** Everything a run is waiting for; served by the `getPending` query. */
export interface PendingDecisions {
  approvals: PendingCall[];
  question: PendingQuestion | null;
  /** Subagents running now, whose pending calls are theirs to serve (absent in answers of older workers). */
  delegations?: RunningDelegation[];
  /** A limit the run asks a person to raise (`limits.onReached: 'ask'`); absent in answers of older workers. */
  budget?: PendingBudget | null;
}

const base = {
  callId: text({ min: 1 }),
  argsHash: optional(text({ min: 1 })),
  ...deciderFields,
  [SIGNATURE_FIELD]: optional(signatureEnvelopeCheck),
  // Written by the worker's verifying codec; a sender's own is replaced before the run sees it.
  [VERDICT_FIELD]: optional(verdictCheck),
} as const;
type Base = ShapeOf<typeof base>;

/** A decision about one pending tool call: the one shape a person's decision has, whoever sends it and how. */
export type Decision =
  | (Base & { decision: 'approve'; always?: boolean })
  | (Base & { decision: 'reject'; reason: string })
  | (Base & { decision: 'edit'; args: Record<string, unknown> })
  | (Base & { decision: 'respond'; observation: string });

/** Checks a person's decision about one pending call, as sent by update or signal (and pasted into the Temporal UI). */
export const checkDecisionPayload: Check<Decision> = variants<Decision>('decision', {
  approve: strict({ ...base, decision: text(), always: optional(bool) }) as Check<Decision>,
  reject: strict({ ...base, decision: text(), reason: text({ trim: true, min: 1 }) }) as Check<Decision>,
  edit: strict({ ...base, decision: text(), args: jsonObject }) as Check<Decision>,
  respond: strict({ ...base, decision: text(), observation: text() }) as Check<Decision>,
});

/**
 * The kinds of decision a person can make about a pending call. Spelled out rather than read off {@link Decision}: the
 * contract generator (scripts/contract.ts) cannot follow a type computed from the checks; `AppliedDecision.decision`
 * is assigned from a `Decision`'s, so a kind added to one and not the other fails to compile.
 */
export type DecisionKind = 'approve' | 'reject' | 'edit' | 'respond';

/**
 * How a call that waited for a person was settled, as the trace records it: the decision's kind (or `timeout` when
 * nobody decided in time), and `always` when an approve-always decision (on this call or a sibling of the same tool)
 * approved it. `always` stays a flag from the decision to the trace; it never becomes a kind of its own.
 */
export interface DecisionOutcome {
  kind: DecisionKind | 'timeout';
  always?: true;
  /** Who decided (absent for timeouts, and in runs recorded before decisions carried it). */
  by?: Decider;
}

const answerShape = {
  answer: text({ trim: true, min: 1 }),
  callId: optional(text({ min: 1 })),
  ...deciderFields,
  // A signed answer names its question (`callId`); see `signedText`.
  [SIGNATURE_FIELD]: optional(signatureEnvelopeCheck),
  [VERDICT_FIELD]: optional(verdictCheck),
};

/** An answer to a clarification question; `callId` is optional because a run asks one at a time. */
export type Answer = ShapeOf<typeof answerShape>;

/** Checks an answer to the model's clarification question. */
export const checkAnswerPayload: Check<Answer> = strict(answerShape);

/**
 * Why a run refused a decision or an answer; nothing changed. Machine-readable, so callers branch on it (a CLI re-asks
 * after an invalid edit, an inbox drops a call decided elsewhere) and never on the message text.
 */
export type RefusalReason =
  | 'invalid_payload'
  | 'already_decided'
  | 'not_pending'
  | 'stale_args'
  | 'invalid_edit'
  | 'ambiguous_call'
  | 'no_question'
  | 'not_allowed'
  | SignatureRefusal;

/** What a decision did, returned to the sender of the update. */
export interface AppliedDecision {
  callId: string;
  tool: string;
  decision: DecisionKind;
  /** True for an approve-always: later calls of this tool in the run (and pending siblings) need no decision. */
  always: boolean;
  /** The arguments the tool will run with (edited ones for `edit`), or null when it will not run. */
  args: unknown;
  /** Who decided, as the run recorded it. */
  by?: Decider;
}
