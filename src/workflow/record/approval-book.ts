import {
  checkAnswerPayload,
  checkDecisionPayload,
  type Answer,
  type AppliedDecision,
  type Decision,
  type DecisionOutcome,
  type PendingCall,
  type PendingDecisions,
  type PendingQuestion,
  type RefusalReason,
  type RunningDelegation,
} from '../../shared/approvals';
import { checkBudgetPayload, type BudgetDecision, type PendingBudget } from '../../shared/budget';
import { deciderOf, isApprover, type Decider } from '../../shared/identity';
import { checkPayload } from '../../shared/payload-check';
import { checkVerdict, signatureDigest, type SigningFacts } from '../../shared/signed-decision';

/** How a pending call was settled: run it (with these arguments), or give the model this observation instead. */
export type Resolution =
  | { outcome: 'run'; args: unknown; decision: DecisionOutcome }
  | { outcome: 'observe'; text: string; isError: boolean; decision: DecisionOutcome; truncated?: boolean };

/** The outcome of a call an approve-always decision let through. */
const ALWAYS: DecisionOutcome = { kind: 'approve', always: true };

/** A pending call and, once decided, its resolution (read by the waiting loop, then closed). */
export interface PendingEntry {
  call: PendingCall;
  resolution?: Resolution;
}

/** A question asked and, once answered, its answer and who gave it. */
export interface AskedQuestion {
  pending: PendingQuestion;
  answer?: string;
  by?: Decider;
}

/** A budget request and, once decided, its decision. */
export interface BudgetAsk {
  pending: PendingBudget;
  decided?: { outcome: BudgetDecision['decision']; amount?: number; by: Decider };
}

/** A checked decision or answer, or the one-line reason it was refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string; reason: RefusalReason };

/** A refusal, with its reason and its one line for the sender. */
export function refused(reason: RefusalReason, message: string): Extract<Checked<never>, { ok: false }> {
  return { ok: false, reason, message };
}

/** Which calls need a signed decision (`approvals.requireSigned`), and the signatures the chain already used. */
export interface SigningRules {
  /** `true`: every call; a list: those tools' calls. */
  requireSigned?: boolean | readonly string[];
  /** Digests of signatures earlier runs of the chain accepted. */
  usedSignatures?: readonly string[];
}

/**
 * What a run is waiting for and the rules for deciding it. Pure (no Temporal APIs), so the update validator, the
 * signal handler and unit tests share the same checks.
 */
export class ApprovalBook {
  readonly entries = new Map<string, PendingEntry>();
  /** Call IDs already decided (or timed out): a second decision for them is refused, never applied elsewhere. */
  readonly closed = new Set<string>();
  private readonly always: string[];
  private openQuestion: AskedQuestion | null = null;
  private openBudget: BudgetAsk | null = null;
  private readonly running = new Map<string, RunningDelegation>();
  private readonly requireSigned: boolean | readonly string[];
  private readonly used: Set<string>;

  /** `alwaysApproved`: the tools an earlier run of the chain approved for good. */
  constructor(alwaysApproved: readonly string[] = [], signing: SigningRules = {}) {
    this.always = [...alwaysApproved];
    this.requireSigned = signing.requireSigned ?? false;
    this.used = new Set(signing.usedSignatures ?? []);
  }

  /** Digests of the signatures decisions of this chain carried, so none is accepted twice. */
  get usedSignatures(): readonly string[] {
    return [...this.used];
  }

  /** Whether a tool's calls need a signed decision. */
  signingRequired(tool: string): boolean {
    return this.requireSigned === true || (Array.isArray(this.requireSigned) && this.requireSigned.includes(tool));
  }

  /** Tools approved with `always: true` for the rest of the run. */
  get alwaysApproved(): readonly string[] {
    return this.always;
  }

  /** The clarification question waiting for (or just given) its answer. */
  get question(): AskedQuestion | null {
    return this.openQuestion;
  }

  /** A budget request (`limits.onReached: 'ask'`) and, once decided, its decision. */
  get budget(): BudgetAsk | null {
    return this.openBudget;
  }

  /** Subagents running now, by child workflow ID, so a client can look for calls pending in them too. */
  get delegations(): ReadonlyMap<string, RunningDelegation> {
    return this.running;
  }

  /** Asks a question; the returned record receives its answer. */
  ask(pending: PendingQuestion): AskedQuestion {
    this.openQuestion = { pending };
    return this.openQuestion;
  }

  /** The question is settled (answered or timed out): a late answer for it is refused as already decided. */
  endQuestion(callId: string): void {
    this.openQuestion = null;
    this.closed.add(callId);
  }

  /** Asks for a budget raise; the returned record receives its decision. */
  askBudget(pending: PendingBudget): BudgetAsk {
    this.openBudget = { pending };
    return this.openBudget;
  }

  /** The budget request is settled. */
  endBudget(): void {
    this.openBudget = null;
  }

  /** A subagent started (its calls wait in its own workflow). */
  delegate(delegation: RunningDelegation): void {
    this.running.set(delegation.workflowId, delegation);
  }

  /** A subagent ended. */
  endDelegation(workflowId: string): void {
    this.running.delete(workflowId);
  }

  /** Registers a call waiting for a decision. */
  open(call: PendingCall): PendingEntry {
    const entry: PendingEntry = { call };
    this.entries.set(call.callId, entry);
    return entry;
  }

  /** Removes a settled call; its ID stays known so late decisions are refused as already decided. */
  close(callId: string): void {
    this.entries.delete(callId);
    this.closed.add(callId);
  }

  /** The undecided calls and question, for the getPending query. */
  snapshot(): PendingDecisions {
    const approvals = [...this.entries.values()].filter((entry) => !entry.resolution).map((entry) => entry.call);
    const question = this.question && this.question.answer === undefined ? this.question.pending : null;
    const budget = this.budget && !this.budget.decided ? this.budget.pending : null;
    return { approvals, question, delegations: [...this.delegations.values()], budget };
  }

  /**
   * Validates a decision payload against what is pending and who may decide it. `verify` (the update validator's
   * facts) also holds a signature's verdict to the run: only the validator passes it, since the verdict comes from
   * the worker's keys of the day and the handler must do the same on replay.
   */
  checkDecision(
    payload: unknown,
    via: 'update' | 'signal' = 'update',
    verify?: Omit<SigningFacts, 'argsHash'>,
  ): Checked<{ decision: Decision; entry: PendingEntry; by: Decider }> {
    const parsed = checkPayload(checkDecisionPayload, payload);
    if (!parsed.ok) return refused('invalid_payload', `Invalid decision: ${parsed.message}`);
    const decision = parsed.value;
    const envelope = decision.signature;
    if (envelope && this.used.has(signatureDigest(envelope))) {
      return refused('signature_reused', `Signature refused: it was already used (call ${decision.callId})`);
    }
    const entry = this.entries.get(decision.callId);
    if (this.closed.has(decision.callId) || entry?.resolution) {
      return refused('already_decided', `Call ${decision.callId} was already decided`);
    }
    if (!entry) {
      const waiting = this.snapshot().approvals.map((call) => call.callId);
      const hint = waiting.length > 0 ? `pending: ${waiting.join(', ')}` : 'nothing is pending';
      return refused('not_pending', `No pending call ${decision.callId} (${hint})`);
    }
    if (decision.argsHash !== undefined && decision.argsHash !== entry.call.argsHash) {
      return refused(
        'stale_args',
        `argsHash ${decision.argsHash} does not match call ${decision.callId} (${entry.call.argsHash}): the decision is about other arguments`,
      );
    }
    const signed = this.checkSigned(decision, entry, via, verify);
    if (signed) return signed;
    if (entry.call.reason === 'uncertain_effect' && decision.decision === 'edit') {
      return refused(
        'invalid_edit',
        `Call ${decision.callId} may already have had its effect: approve runs it again, respond treats it as done with your result, reject skips it; it cannot be edited`,
      );
    }
    const by = deciderOf(decision, via);
    const approvers = entry.call.approvers;
    // Declining is always allowed: it can only keep a call from running.
    if (approvers && decision.decision !== 'reject' && !isApprover(approvers, by)) {
      const who = by.identity === null ? 'an anonymous sender' : `"${by.identity}"`;
      return refused(
        'not_allowed',
        `${who} may not ${decision.decision} call ${decision.callId} (${entry.call.tool}); approvers: ${approvers.join(', ')}`,
      );
    }
    return { ok: true, value: { decision, entry, by } };
  }

  /** The signing rules' verdict on a decision, or null when they let it through. */
  private checkSigned(
    decision: Decision,
    entry: PendingEntry,
    via: 'update' | 'signal',
    verify: Omit<SigningFacts, 'argsHash'> | undefined,
  ): Checked<never> | null {
    const { tool, callId, argsHash } = entry.call;
    const required = this.signingRequired(tool);
    if (required && via === 'signal') {
      // A signal enters history before any code sees it, so nothing could have verified its signature.
      return refused(
        'unsigned',
        `Signal refused: call ${callId} (${tool}) needs a signed decision, sent as an update (inbox, CLI or client)`,
      );
    }
    if (required && !decision.signature) {
      return refused('unsigned', `Unsigned decision refused: call ${callId} (${tool}) needs a signed decision`);
    }
    // A signed decision is verified even where none is required: a signature the worker cannot vouch for is refused.
    if (!verify || !decision.signature || via !== 'update') return null;
    const problem = checkVerdict(decision, decision.signature, decision.signatureVerdict, { ...verify, argsHash });
    return problem ? { ok: false, ...problem } : null;
  }

  /** Settles a checked decision. `always` also approves the other pending calls of the same tool. */
  apply(decision: Decision, entry: PendingEntry, by: Decider): AppliedDecision {
    const { call } = entry;
    if (decision.signature) this.used.add(signatureDigest(decision.signature));
    const applied = { callId: call.callId, tool: call.tool, by };
    // "Always" is about confirming a tool's calls; running an uncertain call again says nothing about later ones.
    const always = decision.decision === 'approve' && decision.always === true && call.reason === undefined;
    switch (decision.decision) {
      case 'approve':
        entry.resolution = {
          outcome: 'run',
          args: call.args,
          decision: always ? { ...ALWAYS, by } : { kind: 'approve', by },
        };
        if (always) this.approveAlways(call.tool, by);
        return { ...applied, decision: 'approve', always, args: call.args };
      case 'edit':
        entry.resolution = { outcome: 'run', args: decision.args, decision: { kind: 'edit', by } };
        return { ...applied, decision: 'edit', always: false, args: decision.args };
      case 'reject':
        entry.resolution = {
          outcome: 'observe',
          text:
            call.reason === 'uncertain_effect'
              ? `[skipped] A person chose not to run ${call.tool} again (its effect may have happened): ${decision.reason}`
              : `[rejected] A person declined to run ${call.tool}: ${decision.reason}`,
          isError: true,
          decision: { kind: 'reject', by },
        };
        return { ...applied, decision: 'reject', always: false, args: null };
      case 'respond':
        entry.resolution = {
          outcome: 'observe',
          text: decision.observation,
          isError: false,
          decision: { kind: 'respond', by },
        };
        return { ...applied, decision: 'respond', always: false, args: null };
    }
  }

  private approveAlways(tool: string, by: Decider): void {
    if (!this.always.includes(tool)) this.always.push(tool);
    for (const entry of this.entries.values()) {
      if (entry.call.tool === tool && !entry.resolution && entry.call.reason === undefined) {
        entry.resolution = { outcome: 'run', args: entry.call.args, decision: { ...ALWAYS, by } };
      }
    }
  }

  /** Validates a budget decision against the pending budget request. */
  checkBudget(
    payload: unknown,
    via: 'update' | 'signal' = 'update',
  ): Checked<{ decision: BudgetDecision; by: Decider; request: NonNullable<ApprovalBook['budget']> }> {
    const parsed = checkPayload(checkBudgetPayload, payload);
    if (!parsed.ok) return refused('invalid_payload', `Invalid budget decision: ${parsed.message}`);
    const request = this.budget;
    if (!request || request.pending.requestId !== parsed.value.requestId) {
      const hint =
        request && !request.decided ? `pending: ${request.pending.requestId}` : 'no budget request is pending';
      return refused('not_pending', `No pending budget request ${parsed.value.requestId} (${hint})`);
    }
    if (request.decided)
      return refused('already_decided', `Budget request ${parsed.value.requestId} was already decided`);
    return { ok: true, value: { decision: parsed.value, by: deciderOf(parsed.value, via), request } };
  }

  /**
   * Validates an answer payload against the pending question; `verify` as for {@link checkDecision}. A form of a tool
   * that needs signed decisions needs a signed answer, unless it declines.
   */
  checkAnswer(
    payload: unknown,
    via: 'update' | 'signal' = 'update',
    verify?: Omit<SigningFacts, 'argsHash'>,
  ): Checked<{ answer: Answer; by: Decider }> {
    const parsed = checkPayload(checkAnswerPayload, payload);
    if (!parsed.ok) return refused('invalid_payload', `Invalid answer: ${parsed.message}`);
    const pending = this.question;
    if (!pending || pending.answer !== undefined) return refused('no_question', 'No question is waiting for an answer');
    if (parsed.value.callId !== undefined && parsed.value.callId !== pending.pending.callId) {
      return refused(
        'not_pending',
        `Question ${parsed.value.callId} is not the pending one (${pending.pending.callId})`,
      );
    }
    const by = deciderOf(parsed.value, via);
    const approvers = pending.pending.approvers;
    // Declining a form is always allowed, as rejecting a call is: it can only keep something from happening.
    const declines = /^\s*(decline|cancel)\s*$/i.test(parsed.value.answer);
    const signed = this.checkSignedAnswer(parsed.value, pending.pending, declines, via, verify);
    if (signed) return signed;
    if (approvers && !declines && !isApprover(approvers, by)) {
      const who = by.identity === null ? 'an anonymous sender' : `"${by.identity}"`;
      return refused(
        'not_allowed',
        `${who} may not answer ${pending.pending.callId}; approvers: ${approvers.join(', ')}`,
      );
    }
    return { ok: true, value: { answer: parsed.value, by } };
  }

  /** The signing rules' verdict on an answer (as {@link checkSigned} for a decision), or null when they let it through. */
  private checkSignedAnswer(
    answer: Answer,
    question: PendingQuestion,
    declines: boolean,
    via: 'update' | 'signal',
    verify: Omit<SigningFacts, 'argsHash'> | undefined,
  ): Checked<never> | null {
    const { callId } = question;
    const envelope = answer.signature;
    if (envelope && this.used.has(signatureDigest(envelope)))
      return refused('signature_reused', `Signature refused: it was already used (${callId})`);
    // A signal's signature can never be verified, and would be spent unverified: refused whether or not one is needed.
    if (via === 'signal' && (envelope || answer.signatureVerdict !== undefined)) {
      return refused('invalid_signature', `Signal refused: a signed answer is sent as an update`);
    }
    const { tool } = question;
    const required = tool !== undefined && !declines && this.signingRequired(tool);
    if (required && via === 'signal') {
      return refused(
        'unsigned',
        `Signal refused: question ${callId} (of a call of ${tool}) needs a signed answer, sent as an update (inbox, CLI or client)`,
      );
    }
    if (required && !envelope) {
      return refused(
        'unsigned',
        `Unsigned answer refused: question ${callId} (of a call of ${tool}) needs a signed answer`,
      );
    }
    if (!verify || !envelope || via !== 'update') return null;
    // The signature names its question: an answer signed for another would otherwise be taken for this one.
    if (answer.callId !== callId)
      return refused('invalid_payload', `A signed answer names its question: callId ${callId}`);
    const problem = checkVerdict({ ...answer, callId }, envelope, answer.signatureVerdict, verify);
    return problem ? { ok: false, ...problem } : null;
  }

  /** Spends an applied answer's signature: it is refused if sent again. */
  spend(answer: Answer): void {
    if (answer.signature) this.used.add(signatureDigest(answer.signature));
  }
}
