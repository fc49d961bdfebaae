import { validateAgentConfig } from '../../shared/agent-config';
import type { ResolvedConfig } from '../../shared/config';
import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from '../../shared/context-windows';
import type { ToolCatalog } from '../../shared/tool-protocol';
import type { RunTuning } from '../model-calls';
import { priceOf, type PriceTable } from '../../shared/cost';
import type { ModelLatency } from '../model-latency';
import type { WorkerTerms } from '../../shared/types';

/**
 * What a run starts from: its checked config with every default, the worker's terms, its tools, and the context
 * window assumed for the model this worker will call when the config sets none; or why the config is refused.
 */
export type PreparedRun =
  | {
      ok: true;
      config: ResolvedConfig;
      terms: WorkerTerms;
      catalog: ToolCatalog;
      assumedContextWindow?: number;
      /**
       * The run's first model call may be a local activity in this same workflow task, where its marker joins this
       * check's: one engine action for both. Set when the run makes its calls as activities and does not stream, and
       * this worker's recent calls to its model all answered quickly (see model-latency.ts). Recorded with the
       * result, so a replay places the call as the run did.
       */
      opensLocally?: true;
    }
  | { ok: false; message: string };

/**
 * The first model of a run with `limits.cost` that has no price: the run's own, or a subagent's (whose spending the
 * cap covers too, and could not count). Described for the refusal, or null when every model is priced.
 */
function unpricedModel(config: ResolvedConfig, model: string, prices: PriceTable): string | null {
  if (priceOf(prices, model) === null) return `model "${model}"`;
  for (const [name, subagent] of Object.entries(config.subagents)) {
    const own = subagent.model ?? model;
    if (priceOf(prices, own) === null) return `subagent "${name}"'s model "${own}"`;
  }
  return null;
}

/** What the workflow says of itself when it asks: its workflow task timeout (histories before it say nothing). */
export interface RunTask {
  taskTimeoutMs?: number;
}

/**
 * Creates the `prepareRun` activity, a new run's first step: its config is checked here, on the worker, where zod
 * lives (the workflow bundle carries no zod), and the run's tools are looked up in the same call. The worker's
 * terms (where model calls run, their policy, run-ahead, the model's price) are returned beside the config, so the
 * run records them.
 */
export function createPrepareRun(
  listTools: (names?: string[]) => Promise<ToolCatalog>,
  defaultModel: string,
  tuning: RunTuning,
  prices: PriceTable = {},
  latency?: ModelLatency,
  verifiesSignatures = false,
): (config: unknown, run?: RunTask) => Promise<PreparedRun> {
  return async function prepareRun(input: unknown, run: RunTask = {}): Promise<PreparedRun> {
    const checked = validateAgentConfig(input);
    if (!checked.ok) return checked;
    const { config } = checked;
    const { openLocally, ...placement } = tuning;
    // The model this worker calls for the run, and its price: recorded, so the ledger replays as it was made.
    const model = config.model ?? defaultModel;
    const terms: WorkerTerms = {
      ...placement,
      pricing: { model, price: priceOf(prices, model) },
      // A local call runs inside the workflow task: its own delta signals would make the server refuse that task's
      // completion, and the calls it made would be made (and paid for) again. A streaming run keeps activities.
      modelCalls: config.modelSettings.stream ? 'activity' : tuning.modelCalls,
    };
    if (config.limits.cost !== undefined) {
      const unpriced = unpricedModel(config, model, prices);
      if (unpriced)
        return {
          ok: false,
          message: `limits.cost needs a price for ${unpriced}: set it in the worker's prices (WORKER_PRICES)`,
        };
    }
    // Without keys every decision would be refused as unsigned, a rejection too, and the run would wait out its
    // approval timeout: refused here, in one line, as an unpriced cost cap is.
    const signed = config.approvals.requireSigned;
    if (!verifiesSignatures && (signed === true || (Array.isArray(signed) && signed.length > 0)))
      return {
        ok: false,
        message:
          "approvals.requireSigned needs a worker that verifies signatures: give it the approvers' public keys " +
          '(WORKER_APPROVAL_KEYS, or the plugin option approvalKeys)',
      };
    const catalog = await listTools(config.tools);
    // A streaming run keeps activities (its delta signals would refuse a local call's task; see above).
    const quick =
      openLocally !== false &&
      terms.modelCalls === 'activity' &&
      !config.modelSettings.stream &&
      latency?.answersQuickly(model, run.taskTimeoutMs) === true;
    const opening = quick ? { opensLocally: true as const } : {};
    if (config.modelSettings.contextWindow !== undefined) return { ok: true, config, terms, catalog, ...opening };
    // Only the worker knows the model a run without `model` calls (its OPENAI_MODEL). Decided here, the assumption is
    // recorded with the run, so a later change to the table of known windows cannot change what a replay does.
    const assumedContextWindow = knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW;
    return { ok: true, config, terms, catalog, assumedContextWindow, ...opening };
  };
}
