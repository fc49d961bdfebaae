import { DecisionRefusedError } from '../../src/client/decisions';

/** The reason a decision or answer was refused with, and its one-line message; throws if it was accepted. */
export async function refusal(sending: Promise<unknown>): Promise<{ reason: string | undefined; message: string }> {
  const error = await sending.then(
    () => new Error('the decision was accepted'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof DecisionRefusedError)) throw error;
  return { reason: error.reason, message: error.message };
}
