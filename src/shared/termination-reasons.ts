/** Every termination reason, for code that checks one given as data (an eval suite, a test's expectation). */
export const TERMINATION_REASONS = [
  'success',
  'max_iterations',
  'failure',
  'stalled',
  'token_budget',
  'cost_budget',
  'timeout',
  'cancelled',
  'custom',
] as const;

/** Why a run stopped; exactly these values. */
export type TerminationReason = (typeof TERMINATION_REASONS)[number];
