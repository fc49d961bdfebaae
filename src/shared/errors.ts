/**
 * Base of every error the package throws: each subclass has a stable `name` (its class name), so callers branch on
 * `instanceof` or `name`, never on message text. Errors that cross Temporal (a failed run, a refused decision) arrive
 * as ApplicationFailures whose `type` is one of {@link ErrorType}.
 */
export abstract class DurableAgentError extends Error {
  abstract override readonly name: string;
}

/**
 * Stable `type` names of the ApplicationFailures the runtime raises; callers branch on these, never on message text.
 * Every ApplicationFailure the package creates uses one of them.
 */
export const ErrorType = {
  /** The model endpoint rejected the API key (401/403). */
  ModelAuthentication: 'ModelAuthenticationError',
  /** The endpoint or model name does not exist (404). */
  ModelNotFound: 'ModelNotFoundError',
  /** The endpoint refused the request as malformed (400, 422). */
  ModelBadRequest: 'ModelBadRequestError',
  /** Retryable: 429, honouring retry-after. */
  ModelRateLimited: 'ModelRateLimitedError',
  /** Retryable: 408/409/5xx, connection errors and timeouts. */
  ModelUnavailable: 'ModelUnavailableError',
  /**
   * The prompt does not fit the model's context window (the provider said so). Not retried as it is: the loop
   * compacts the prompt and calls again, or stops with `token_budget`.
   */
  ModelContextLengthExceeded: 'ModelContextLengthExceededError',
  /** The endpoint answered, but not with a chat completion (an HTML page, JSON without choices): check the URL. */
  ModelBadResponse: 'ModelBadResponseError',
  /** Config refused inside the workflow (e.g. started from the Temporal UI with bad input). */
  InvalidConfig: 'InvalidConfigError',
  /**
   * Retryable: the worker running a call has no tool of that name, which the run's tool list (another worker's) has.
   * The workflow makes it an `unknown_tool` observation once the attempts are spent.
   */
  ToolNotOnThisWorker: 'ToolNotOnThisWorkerError',
  /** A tool threw; retried by Temporal when the tool's policy allows, else shown to the model. */
  ToolFailed: 'ToolFailedError',
  /** A decision or answer a run refused (unknown or decided call, stale argsHash, invalid edit); nothing changed. */
  InvalidDecision: 'InvalidDecisionError',
  /** A hook of a user's workflow (shouldStop, beforeToolCall) threw: the run fails with the hook's message. */
  AgentHook: 'AgentHookError',
} as const;

/** Types of the failures a model call raises: the `Model…` names of {@link ErrorType}, which only model calls use. */
export const MODEL_ERROR_TYPES: ReadonlySet<string> = new Set(
  Object.entries(ErrorType).flatMap(([key, type]) => (key.startsWith('Model') ? [type] : [])),
);

/** Model failures that retrying cannot fix: the run fails at once with the message. */
export const NON_RETRYABLE_MODEL_ERRORS: readonly string[] = [
  ErrorType.ModelAuthentication,
  ErrorType.ModelNotFound,
  ErrorType.ModelBadRequest,
  ErrorType.ModelContextLengthExceeded,
  ErrorType.ModelBadResponse,
];

/** What a caught value says: an Error's message, anything else as text (a thrown string, a rejected number). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
