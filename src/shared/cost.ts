/*
 * What a run cost: the ledger's shapes and its arithmetic. zod-free and pure, because the workflow keeps the ledger
 * (so its numbers are part of the run and replay the same) and clients, the CLI and the inbox read it.
 */

/** Tokens reported by the model for one call, or summed over a run. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens the provider served from its cache (billed at the cached price); absent when none were reported. */
  cachedPromptTokens?: number;
}

/** Sums two usage records. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const cached = (a.cachedPromptTokens ?? 0) + (b.cachedPromptTokens ?? 0);
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    // Only when reported: a usage record without it stays exactly as it was before caching was read.
    ...(cached > 0 ? { cachedPromptTokens: cached } : {}),
  };
}

/** Usage of nothing. */
export const ZERO_USAGE: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** A model's price in USD per million tokens; cached input defaults to the input price when a provider has none. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

/**
 * Prices by model name, as a worker is configured with them (plugin `prices`, WORKER_PRICES). A key ending in `*` is
 * a prefix (`"gpt-4o-2024-*"`); an exact name wins, then the longest prefix.
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The price of `model` in `prices`: its own entry, else the longest matching `prefix*` entry, else null. */
export function priceOf(prices: PriceTable, model: string): ModelPrice | null {
  // Own entries only: a model named "constructor" or "toString" must not find Object's, which passed the start check
  // for a run with limits.cost and then priced nothing, so the cap never applied.
  const own = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (own) return own;
  const prefixes = Object.keys(prices)
    .filter((key) => key.endsWith('*') && model.startsWith(key.slice(0, -1)))
    .sort((a, b) => b.length - a.length);
  return prefixes.length > 0 ? prices[prefixes[0]!]! : null;
}

/**
 * The price a run records when it starts (prepareRun): the model the worker calls for it and that model's price, or
 * null when the worker has none. Recorded, so a later change of the worker's table never changes a replay.
 */
export interface RunPricing {
  model: string;
  price: ModelPrice | null;
}

/**
 * Engine actions counted the way Temporal Cloud bills them, by kind. Queries, heartbeats and rejected updates are
 * billed too but leave nothing in the run (see docs/what-a-run-cost.md), so they are not here.
 */
export interface EngineActions {
  /** Runs started: the first run, each continue-as-new run and each fork (a subagent's start is `childStarts`). */
  workflowStarts: number;
  /** Child workflows started (subagents), 2 actions each. */
  childStarts: number;
  /** Activities scheduled, and their retries (attempts − 1, from their results). */
  activities: number;
  activityRetries: number;
  /**
   * Workflow tasks that ran local activities (all of one task are one action), heartbeats of tasks they held open
   * included, and local retries.
   */
  localActivityBatches: number;
  localActivityRetries: number;
  /** Timers started: the time budget, approval and budget waits, idle conversations (a `condition` with a timeout). */
  timers: number;
  /** Signals received (decisions sent as signals, streamed deltas). */
  signals: number;
  /** Updates accepted (decisions, follow-up messages, `waitForEvents`). */
  updates: number;
  /** Search-attribute upserts (AgentStatus, AgentPendingTools); the patch marker's own upsert is free. */
  searchAttributeUpserts: number;
}

/** Workflow tasks time out after 10 s unless a run's start says otherwise. */
export const DEFAULT_TASK_TIMEOUT_MS = 10_000;

/**
 * Share of the workflow task timeout after which the SDK heartbeats a task that local activities hold open: it
 * completes the task and the server starts another at once, each billed (Temporal's local-activity design).
 */
export const TASK_HEARTBEAT_SHARE = 0.8;

/** One model call of the ledger: its model, tokens and attempts; `usd` is null when the model has no price. */
export interface ModelCallCost {
  /**
   * What the call was for: `think`, `final_answer` (the forced one, after a stop), `summarize`, `critic`, or
   * `sample` (an MCP server's sampling request during a call of its tools).
   */
  kind: 'think' | 'final_answer' | 'summarize' | 'critic' | 'sample';
  iteration: number;
  model: string;
  usage: TokenUsage;
  /** Attempts the call took (1 unless it was retried). */
  attempts: number;
  usd: number | null;
}

/** Time tools took, by tool: calls, and workflow time from scheduling to result (a run-ahead result costs none). */
export interface ToolTime {
  calls: number;
  ms: number;
  /** Attempts past the first, summed over the tool's calls. */
  retries: number;
}

/** Work paid for and then repeated or thrown away. */
export interface WastedWork {
  /** Model calls that took more than one attempt, and the attempts past the first (a paid request may be repeated). */
  retriedModelCalls: number;
  modelRetries: number;
  /** Tool calls that took more than one attempt, and the attempts past the first. */
  retriedToolCalls: number;
  toolRetries: number;
  /** Results a model call ran ahead that the run did not use (the call was refused, or its arguments differed). */
  discardedRunAheadResults: number;
}

/** A run's cost ledger: the chain's and its subagents' totals, and this run's model calls. */
export interface RunCost {
  /** Tokens of every model call (subagents included). */
  usage: TokenUsage;
  /** USD of the priced calls; null when no call had a price. */
  usd: number | null;
  /** Tokens of calls whose model had no price: their money is unknown, not zero. */
  unpricedTokens: number;
  /** The models called, each with its price as recorded when its run started (null: no price). */
  models: Record<string, ModelPrice | null>;
  /** This run's model calls, newest last (the earlier runs' are summed into the totals, not listed). */
  calls: ModelCallCost[];
  tools: Record<string, ToolTime>;
  engineActions: EngineActions;
  /** The sum of `engineActions`, weighted as billed (a child start is 2). */
  engineActionsTotal: number;
  wasted: WastedWork;
  /** Subagents' costs summed in (their workflow IDs). */
  subagents: string[];
}

/** The totals one run carries to the next of its chain and a subagent returns to its parent. */
export type CarriedCost = Omit<RunCost, 'calls' | 'engineActionsTotal'>;

/** No engine actions yet. */
export function noEngineActions(): EngineActions {
  return {
    workflowStarts: 0,
    childStarts: 0,
    activities: 0,
    activityRetries: 0,
    localActivityBatches: 0,
    localActivityRetries: 0,
    timers: 0,
    signals: 0,
    updates: 0,
    searchAttributeUpserts: 0,
  };
}

/** Nothing wasted yet. */
export function noWaste(): WastedWork {
  return {
    retriedModelCalls: 0,
    modelRetries: 0,
    retriedToolCalls: 0,
    toolRetries: 0,
    discardedRunAheadResults: 0,
  };
}

/** A ledger with nothing in it. */
export function emptyCost(): CarriedCost {
  return {
    usage: { ...ZERO_USAGE },
    usd: null,
    unpricedTokens: 0,
    models: {},
    tools: {},
    engineActions: noEngineActions(),
    wasted: noWaste(),
    subagents: [],
  };
}

/** Engine actions as billed: each kind counts 1, a child workflow's start 2. */
export function engineActionsTotal(actions: EngineActions): number {
  return (
    actions.workflowStarts +
    2 * actions.childStarts +
    actions.activities +
    actions.activityRetries +
    actions.localActivityBatches +
    actions.localActivityRetries +
    actions.timers +
    actions.signals +
    actions.updates +
    actions.searchAttributeUpserts
  );
}

/**
 * USD of one call's tokens. Cached prompt tokens (when the provider reports them) are billed at the cached price, the
 * rest of the prompt at the input price. Rounded to a millionth of a cent so sums stay stable as text.
 */
export function priceUsage(usage: TokenUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const usd =
    ((usage.promptTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.completionTokens * price.output) /
    1_000_000;
  return roundUsd(usd);
}

/** Rounds to 1e-8 USD: float sums of many calls must not print as 0.30000000000000004. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}

function addNumbers<T extends object>(a: T, b: T): T {
  const sum = { ...a } as Record<string, number>;
  for (const [key, value] of Object.entries(b as Record<string, number>)) sum[key] = (sum[key] ?? 0) + value;
  return sum as T;
}

/** Two counts of engine actions added kind by kind (a chain's runs, a parent and its subagents). */
export function addEngineActions(a: EngineActions, b: EngineActions): EngineActions {
  return addNumbers(a, b);
}

/** Sums two ledgers' totals (a chain's runs, or a parent and its subagent). */
export function addCost(a: CarriedCost, b: CarriedCost): CarriedCost {
  const tools: Record<string, ToolTime> = { ...a.tools };
  for (const [tool, time] of Object.entries(b.tools)) tools[tool] = tools[tool] ? addNumbers(tools[tool], time) : time;
  return {
    usage: addUsage(a.usage, b.usage),
    usd: a.usd === null && b.usd === null ? null : roundUsd((a.usd ?? 0) + (b.usd ?? 0)),
    unpricedTokens: a.unpricedTokens + b.unpricedTokens,
    models: { ...a.models, ...b.models },
    tools,
    engineActions: addNumbers(a.engineActions, b.engineActions),
    wasted: addNumbers(a.wasted, b.wasted),
    subagents: [...a.subagents, ...b.subagents],
  };
}

/**
 * "$0.0056", "$1.234", "$1234.50": four significant digits under $100, cents above; "no price" when nothing was
 * priced. Plain arithmetic, no Intl: the workflow formats with it too, and must format the same on every worker.
 */
export function formatUsd(usd: number | null): string {
  if (usd === null) return 'no price';
  if (usd >= 100) return `$${usd.toFixed(2)}`;
  const rounded = Number(usd.toPrecision(4));
  // Small amounts would print as 1.2e-7: write every digit out, then drop the trailing zeros.
  const text = String(rounded).includes('e') ? rounded.toFixed(12).replace(/\.?0+$/, '') : String(rounded);
  return `$${text}`;
}

/** The one-line summary the CLI, the events and the UI show. */
export function describeCost(cost: Pick<RunCost, 'usd' | 'unpricedTokens' | 'usage' | 'engineActionsTotal'>): string {
  const money =
    cost.usd === null
      ? 'no price'
      : `${formatUsd(cost.usd)}${cost.unpricedTokens > 0 ? ` (+${cost.unpricedTokens} tokens with no price)` : ''}`;
  return `${money} · ${cost.usage.totalTokens} tokens · ${cost.engineActionsTotal} engine actions`;
}

/** A run's cost without this run's call list and the derived total: what is summed and carried to the next run. */
export function carriedCostOf(cost: RunCost): CarriedCost {
  const { usage, usd, unpricedTokens, models, tools, engineActions, wasted, subagents } = cost;
  return { usage, usd, unpricedTokens, models, tools, engineActions, wasted, subagents };
}
