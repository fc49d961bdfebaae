import { ApplicationFailure, Context } from '@temporalio/activity';
import { parseDuration } from '../../shared/duration';
import { ErrorType } from '../../shared/errors';
import { errorObservation, successObservation } from '../../shared/observation';
import type {
  ReconcileOutcome,
  ReconcileToolInput,
  RunToolInput,
  StepEffect,
  ToolCatalog,
  ToolObservation,
  ValidateArgsInput,
} from '../../shared/tool-protocol';
import { formatZodIssues } from '../../shared/validation';
import { DEFAULT_TOOL_CATEGORY, ToolInputError, type AnyToolDefinition, type ToolProgress } from '../tools/define-tool';
import { toolParametersSchema } from '../tools/catalog';
import { isRetryableError } from '../tools/retryable-errors';
import type { ToolRegistry } from '../tools/registry';
import { withHeartbeats } from './heartbeat';
import { progressSender } from './streaming';
import { callExchange, CallNeedsRunError } from '../tools/call-exchange';

/** Per-attempt timeout of a tool that does not set one. */
export const DEFAULT_TOOL_TIMEOUT = '30s';
/** Tools are not retried unless they opt in: a retried side effect is worse than an error the model sees. */
export const DEFAULT_TOOL_RETRY = { maximumAttempts: 1, initialInterval: '1s', backoffCoefficient: 2 };

/**
 * Longest per-attempt timeout of a tool that runs as a local activity unless it says otherwise. A local activity
 * saves the step a task-queue round trip and a workflow task (the step then costs one server round trip,
 * the model call's); a tool that may run longer stays a remote activity, which heartbeats, shows as pending in the
 * Temporal UI while it runs and has its result recorded the moment it ends.
 */
export const LOCAL_TOOL_MAX_TIMEOUT_MS = 30_000;

/**
 * Whether a tool runs as a local activity: as it declares, else when its timeout is at most
 * {@link LOCAL_TOOL_MAX_TIMEOUT_MS}. Either way a retried or re-run call gets the same idempotency key. A tool with
 * `reconcile` runs remotely unless it says `local: true`: a remote attempt's number survives a lost worker, so its
 * retry knows to reconcile, where a local activity re-run after its worker died starts again at attempt 1.
 */
export function runsLocally(tool: AnyToolDefinition): boolean {
  if (tool.local !== undefined) return tool.local;
  if (tool.reconcile) return false;
  return (parseDuration(tool.timeout ?? DEFAULT_TOOL_TIMEOUT) ?? Infinity) <= LOCAL_TOOL_MAX_TIMEOUT_MS;
}

function retryPolicyOf(tool: AnyToolDefinition): ToolCatalog['tools'][number]['retry'] {
  return { ...DEFAULT_TOOL_RETRY, ...tool.retry };
}

/** Creates the `listTools` activity: what the workflow needs to schedule each tool, and which names are unknown. */
export function createListTools(registry: ToolRegistry): (names?: string[]) => Promise<ToolCatalog> {
  return async function listTools(names?: string[]): Promise<ToolCatalog> {
    // MCP servers' tool lists, fetched here (in an activity) and cached per worker.
    await registry.refresh(names);
    const { tools, unknown } = registry.resolve(names);
    return {
      unknown,
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        category: tool.category ?? DEFAULT_TOOL_CATEGORY,
        timeout: tool.timeout ?? DEFAULT_TOOL_TIMEOUT,
        retry: retryPolicyOf(tool),
        confirm: tool.confirm ?? 'never',
        local: runsLocally(tool),
        ...(tool.readOnly ? { readOnly: true } : {}),
        ...(tool.reconcile ? { reconciles: true as const } : {}),
        ...(tool.remote ? { remote: tool.remote } : {}),
        parameters: toolParametersSchema(tool),
      })),
    };
  };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** How many failed attempts' errors a worker remembers for their retries; the oldest is forgotten first. */
const REMEMBERED_FAILURES = 1000;

/**
 * The error of each call's latest failed attempt, kept until its retry: Temporal hands an attempt its number but not
 * the failure before it. A local activity retries in the worker that holds its workflow, so it finds it unless that
 * worker restarted; a remote one retried by another worker does not, and says so.
 */
class FailedAttempts {
  private readonly messages = new Map<string, string>();

  remember(key: string, message: string): void {
    this.messages.delete(key);
    this.messages.set(key, message);
    const oldest = this.messages.keys().next();
    if (this.messages.size > REMEMBERED_FAILURES && !oldest.done) this.messages.delete(oldest.value);
  }

  /** Whether this worker saw the call's previous attempt fail. */
  has(key: string): boolean {
    return this.messages.has(key);
  }

  take(key: string, attempt: number): string {
    const message = this.messages.get(key);
    this.messages.delete(key);
    return message ?? `attempt ${attempt - 1} failed on another worker`;
  }
}

/**
 * Creates the `runTool` activity: validates the arguments with the tool's schema, runs the handler with an
 * idempotency key, and formats the result. Problems become error observations; a throwing handler is retried by
 * Temporal while the tool's retry policy has attempts left and the tool counts the error as retryable. The result
 * says how many attempts it took, and what the last failed one threw when a later one succeeded.
 */
export function createRunTool(registry: ToolRegistry): (input: RunToolInput) => Promise<ToolObservation> {
  const failedAttempts = new FailedAttempts();
  return async function runTool(input: RunToolInput): Promise<ToolObservation> {
    // Another worker may have listed the tools: this one learns MCP tools it has not seen yet.
    const tool = await registry.lookup(input.tool);
    if (!tool) {
      // The workflow schedules only tools its run's list names, and a worker made that list: one that serves other
      // tools on the same task queue, which splits runs at random. Said on this worker's log, where its operator
      // looks, and retried under the tool's policy, so another attempt may reach a worker that has the tool.
      const { taskQueue } = Context.current().info;
      const message =
        `this worker has no tool "${input.tool}", which the run's tool list names: workers on task queue ` +
        `"${taskQueue}" serve different tools (each worker on a queue must serve the same ones), or the MCP server ` +
        'it comes from did not answer this worker';
      Context.current().log.warn(message);
      throw ApplicationFailure.retryable(message, ErrorType.ToolNotOnThisWorker);
    }
    const parsed = tool.schema.safeParse(input.args);
    if (!parsed.success) {
      return errorObservation(
        input.tool,
        input.args,
        `invalid arguments: ${formatZodIssues(parsed.error.issues)}`,
        'invalid_arguments',
      );
    }
    const context = Context.current();
    const workflowId = context.info.workflowExecution?.workflowId ?? context.info.activityId;
    const idempotencyKey = input.idempotencyKey ?? `${workflowId}:${input.callId}`;
    const { attempt } = context.info;
    // One per call and the same for all its attempts, even a local activity's retry after a long backoff, which the
    // workflow schedules anew under another activity ID.
    const attemptsKey = idempotencyKey;
    // Attempt > 1 with no failure this worker saw: an earlier attempt's outcome is unknown (its worker died, it timed
    // out while running, or another worker saw it fail). Counted as "may have happened": a false alarm costs one
    // lookup, a missed one a duplicate effect.
    const unseen = attempt > 1 && !failedAttempts.has(attemptsKey);
    // A local activity re-run after its worker died starts at attempt 1 with nothing recorded: indistinguishable from
    // a first run, so a local tool that reconciles asks before every first attempt, except the first attempt of a run
    // a person approved over reconcile's `unknown`. A retry of that run asks like any other: the person approved one
    // more run, not every attempt the retry policy allows.
    const reconciles = input.reconcile === true && tool.reconcile !== undefined;
    const askFirst = reconciles && (unseen || (context.info.isLocal && attempt === 1 && input.rerun !== true));
    return withHeartbeats(async (signal, progress) => {
      let effect: StepEffect | undefined = unseen
        ? { attempts: attempt, mayHaveHappened: true, noticedBy: 'retry' }
        : undefined;
      if (askFirst) {
        const found = await reconcileCall(tool, idempotencyKey, parsed.data, signal, input);
        // A local first attempt that finds nothing is an ordinary first run: no evidence to keep.
        if (found.verdict !== 'not_done' || unseen) {
          effect = {
            attempts: attempt,
            mayHaveHappened: true,
            noticedBy: unseen ? 'retry' : 'local_first_attempt',
            reconcile: found.verdict,
            ...(found.detail !== undefined ? { detail: found.detail } : {}),
          };
        }
        if (found.verdict === 'done' && found.observation) {
          failedAttempts.take(attemptsKey, attempt);
          return { ...found.observation, ...(attempt > 1 ? { attempts: attempt } : {}), ...(effect ? { effect } : {}) };
        }
        if (found.verdict === 'unknown') {
          failedAttempts.take(attemptsKey, attempt);
          return {
            ...uncertainObservation(input.tool, input.args, found.detail),
            attempts: attempt,
            ...(effect ? { effect } : {}),
          };
        }
      }
      const evidence = effect ? { effect } : {};
      // Progress goes out with the heartbeats (the UI's pending activity) and to the run (`tool_progress` events).
      const reports = progressSender(input.callId);
      const report = (update: ToolProgress) => {
        progress(update);
        reports.push(update);
      };
      try {
        const exchange = { answers: input.answers ?? {} };
        const output = await callExchange
          .run(exchange, async () => await tool.handler(parsed.data, { idempotencyKey, signal, progress: report }))
          .finally(() => reports.stop());
        const observation = successObservation(output, input.maxObservationTokens, input.fullTextOver);
        if (attempt === 1) return { ...observation, ...evidence };
        return {
          ...observation,
          attempts: attempt,
          recoveredFrom: failedAttempts.take(attemptsKey, attempt),
          ...evidence,
        };
      } catch (error) {
        // Not a failure: the workflow answers what the call asked and makes it again.
        if (error instanceof CallNeedsRunError)
          return { text: '', isError: false, truncated: false, needs: error.need };
        if (signal.aborted) throw error;
        const message = errorMessage(error);
        if (error instanceof ToolInputError)
          return { ...errorObservation(input.tool, input.args, message, 'invalid_arguments'), ...evidence };
        // A permanent error ends the call on this attempt: the model sees it now, not after every backoff.
        if (attempt < retryPolicyOf(tool).maximumAttempts && isRetryableError(tool.retryableErrors, error)) {
          failedAttempts.remember(attemptsKey, message);
          throw ApplicationFailure.retryable(message, ErrorType.ToolFailed);
        }
        failedAttempts.take(attemptsKey, attempt);
        return { ...errorObservation(input.tool, input.args, message), attempts: attempt, ...evidence };
      }
    });
  };
}

/** Text of a call `reconcile` could not settle; the workflow asks a person and the model sees their outcome. */
function uncertainObservation(tool: string, args: unknown, detail: string | undefined): ToolObservation {
  const why = detail !== undefined ? `: ${detail}` : '';
  return errorObservation(tool, args, `its effect may have happened and reconcile could not tell${why}`);
}

/**
 * Asks a tool's `reconcile` about one call. A throwing or malformed `reconcile` is `unknown` with its error as the
 * detail: a lookup that failed has found nothing out, and running the call again on a guess could duplicate it.
 */
async function reconcileCall(
  tool: AnyToolDefinition,
  idempotencyKey: string,
  args: unknown,
  signal: AbortSignal,
  format: Pick<RunToolInput, 'maxObservationTokens' | 'fullTextOver'>,
): Promise<ReconcileOutcome> {
  if (!tool.reconcile) return { verdict: 'not_done' };
  try {
    const found = await tool.reconcile(idempotencyKey, args, { signal });
    if (found.status === 'done') {
      return {
        verdict: 'done',
        observation: successObservation(found.result, format.maxObservationTokens, format.fullTextOver),
      };
    }
    if (found.status === 'not_done') return { verdict: 'not_done' };
    if (found.status === 'unknown') return { verdict: 'unknown', ...(found.detail ? { detail: found.detail } : {}) };
    return { verdict: 'unknown', detail: `reconcile returned an unknown status` };
  } catch (error) {
    if (signal.aborted) throw error;
    return { verdict: 'unknown', detail: `reconcile failed: ${errorMessage(error)}` };
  }
}

/**
 * Creates the `reconcileTool` activity: the workflow asks it about a call whose attempts ran out by timeouts or lost
 * workers, before it tells the model the call failed. It only looks the effect up; it never runs the handler.
 */
export function createReconcileTool(registry: ToolRegistry): (input: ReconcileToolInput) => Promise<ReconcileOutcome> {
  return async function reconcileTool(input: ReconcileToolInput): Promise<ReconcileOutcome> {
    const tool = await registry.lookup(input.tool);
    if (!tool?.reconcile) return { verdict: 'unknown', detail: `no worker tool "${input.tool}" can reconcile` };
    const parsed = tool.schema.safeParse(input.args);
    if (!parsed.success) return { verdict: 'unknown', detail: "the call's arguments no longer fit the tool's schema" };
    return withHeartbeats((signal) => reconcileCall(tool, input.idempotencyKey, parsed.data, signal, input));
  };
}

/** Creates the `validateToolArgs` activity: the tool's own schema judges arguments a person edited. */
export function createValidateToolArgs(registry: ToolRegistry): (input: ValidateArgsInput) => Promise<string | null> {
  return async function validateToolArgs(input: ValidateArgsInput): Promise<string | null> {
    const tool = await registry.lookup(input.tool);
    if (!tool) return `unknown tool "${input.tool}"`;
    const parsed = tool.schema.safeParse(input.args);
    return parsed.success ? null : `invalid arguments for ${input.tool}: ${formatZodIssues(parsed.error.issues)}`;
  };
}
