import { list, oneOf, optional, text } from './payload-check';

/** How a decision reached the run: the inbox web app, the CLI, the client library, or a raw signal (Temporal UI). */
export const CHANNELS = ['inbox', 'cli', 'client', 'signal'] as const;
/** One of {@link CHANNELS}. */
export type Channel = (typeof CHANNELS)[number];

/**
 * Who sends a decision, as the sender states it. The run cannot authenticate its callers (Temporal's own
 * authorization decides who may send updates at all); it records the claim and checks it against `approvers`. The
 * inbox fills it from an authenticated identity, the CLI and the client from a flag, env var or option.
 */
export const deciderFields = {
  identity: optional(text({ trim: true, min: 1, max: 200 })),
  roles: optional(list(text({ trim: true, min: 1, max: 100 }), 50)),
  channel: optional(oneOf(CHANNELS)),
};

/** Who decided, as recorded in the trace, the events and the UI details. `identity` is null for anonymous senders. */
export interface Decider {
  identity: string | null;
  channel: Channel;
  roles?: string[];
  /**
   * The key whose signature the worker verified before the run accepted the decision (`approvals.requireSigned`);
   * `identity` is then the approver that key belongs to, not a claim. Absent for unsigned decisions and signals.
   */
  signedWith?: string;
}

/**
 * The decider of a checked payload. A signal's channel is always `signal`, whatever the payload claims: that is how
 * it arrived. An update without a channel came from some client.
 */
export function deciderOf(
  payload: {
    identity?: string | undefined;
    roles?: string[] | undefined;
    channel?: Channel | undefined;
    signature?: { keyId: string } | undefined;
  },
  via: 'update' | 'signal',
): Decider {
  const channel: Channel = via === 'signal' ? 'signal' : (payload.channel ?? 'client');
  return {
    identity: payload.identity ?? null,
    channel,
    ...(payload.roles && payload.roles.length > 0 ? { roles: payload.roles } : {}),
    // Only an update's signature was verified (by its validator); a signal's cannot be.
    ...(via === 'update' && payload.signature ? { signedWith: payload.signature.keyId } : {}),
  };
}

/** Whether a decider satisfies an approvers list: its identity is named, or one of its roles as `role:<name>`. */
export function isApprover(approvers: readonly string[], decider: Pick<Decider, 'identity' | 'roles'>): boolean {
  if (decider.identity === null) return false;
  if (approvers.includes(decider.identity)) return true;
  return (decider.roles ?? []).some((role) => approvers.includes(`role:${role}`));
}

/** "alice via inbox", for logs, the UI details and the audit. */
export function describeDecider(decider: Decider | undefined): string {
  if (!decider) return 'unknown';
  const signed = decider.signedWith ? `, signed with ${decider.signedWith}` : '';
  return `${decider.identity ?? 'anonymous'} via ${decider.channel}${signed}`;
}
