import { SimplePlugin } from '@temporalio/plugin';
import { Runtime, type WorkerOptions } from '@temporalio/worker';
import type OpenAI from 'openai';
import { DEFAULT_OPENAI_BASE_URL, readEnv } from '../common/env';
import { createActivities } from './activities';
import { createOpenAIClient, NO_API_KEY } from './openai-client';
import { createBuiltinTools } from './tools/builtin';
import type { AnyToolDefinition } from './tools/define-tool';
import { DuplicateToolError, ToolRegistry } from './tools/registry';
import { parseMcpServers, type McpServersConfig } from './mcp/config';
import { McpToolSource } from './mcp/tool-source';
import {
  parseRemoteTools,
  RemoteToolConfigError,
  remoteToolsOrigin,
  type RemoteToolConfig,
} from './tools/remote-tools';
import { ENGINE_ACTION_COUNTER_PATH, stockBundleOptions } from './workflow-bundle';
import { useLinearTimeRegexFallback } from './regex-engine';
import { requestTimeoutMs, runTuningOf, type ModelCallOptions } from './model-calls';
import type { ApprovalKey } from '../common/decision-signing';
import { DecisionVerifierCodec } from './codec/decision-verifier';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { PriceTable } from '../shared/cost';
import { checkPriceTable } from './prices';
import { InvalidEnvironmentError } from './env';

export { stockBundleOptions } from './workflow-bundle';

/**
 * Runs a worker keeps in its workflow cache unless told otherwise (`maxCachedWorkflows`). The SDK's own default grows
 * with the heap limit (2,310 on a 4 GiB heap) and the worker's memory follows the cache, not the number of runs: a
 * parked run that leaves the cache costs nothing until it wakes, when its history is replayed (a few milliseconds
 * for a short run). 250 keeps every busy run of a typical worker cached and bounds its memory.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 250;

/** What the plugin needs; everything has a default read from the environment (OPENAI_*). */
export interface DurableAgentPluginOptions {
  /** The model client; by default one for OPENAI_BASE_URL / OPENAI_API_KEY with retries left to Temporal. */
  openai?: OpenAI;
  /** Model used when a run's config names none (default OPENAI_MODEL). */
  defaultModel?: string;
  /** The tools this worker can run; by default every built-in tool, file tools confined to `toolsRoot`. */
  tools?: ToolRegistry | readonly AnyToolDefinition[];
  /** Folder the built-in file and search tools are confined to (default: the current directory). */
  toolsRoot?: string;
  /**
   * MCP servers whose tools the worker offers (`<server>__<tool>`): each call is its own activity. The worker starts
   * stdio servers when first needed and stops them when it stops.
   */
  mcpServers?: McpServersConfig;
  /**
   * Tools that run in other workers, in any language: each is an activity type on a task queue that the workflow
   * schedules with `{ tool, args, callId, idempotencyKey }` (see docs/tools-in-other-languages.md). Listed, approved,
   * keyed and traced like this worker's own tools; this worker checks their arguments against `parameters` first.
   */
  remoteTools?: readonly RemoteToolConfig[];
  /**
   * Keep stack traces in the stock workflows when the worker bundles them: errors thrown in workflow code and the
   * Temporal UI's stack trace then show frames, at a CPU cost on every step (off by default; see
   * src/workflows/sandbox-setup.ts). No effect on a prebuilt bundle or on workflows of your own.
   */
  workflowStackTraces?: boolean;
  /**
   * Characters of prompts the worker keeps so a run's next model call can travel as a delta (default 8,000,000,
   * about 16 MB at most); a run whose prompt it no longer holds costs a query to the workflow on its next call.
   */
  promptCacheChars?: number;
  /**
   * How the runs this worker starts make their model calls: `local` activities or not, one attempt's `timeout`, and the
   * retry policy (`maximumAttempts`, `initialInterval`, `maximumInterval`, `backoffCoefficient`). Each run records
   * its worker's setting when it starts.
   */
  modelCalls?: ModelCallOptions;
  /**
   * Read-only tools (defineTool's `readOnly`) that run locally and need no confirmation run inside the model call
   * that names them; the workflow uses a result only for a call it admits, and a step then costs one activity
   * (default true). `false`: every call runs as the tool's own activity, each its own entry in the Temporal UI.
   */
  runAhead?: boolean;
  /**
   * The keys signed decisions are verified with (`approvals.requireSigned`): each key ID names its approver. They stay
   * in this process, never in a run's config or history; a worker without them refuses every signed decision. Read
   * them from a file with `readApprovalKeysFile` (WORKER_APPROVAL_KEYS for the CLI's worker).
   */
  approvalKeys?: readonly ApprovalKey[];
  /**
   * Model prices in USD per million tokens, by model name (`{ 'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 }
   * }`), for each run's cost ledger and `limits.cost`. None by default (prices go stale): runs then show their tokens
   * and "no price". A run records its model's price when it starts, so a change here never alters a recorded run.
   */
  prices?: PriceTable;
}

/** The plugin's prices, checked once when the worker is made: a bad table must not fail every run's start. */
function pricesOf(prices: PriceTable | undefined): PriceTable {
  if (prices === undefined) return {};
  const checked = checkPriceTable(prices);
  if (!checked.ok) throw new InvalidEnvironmentError(`Invalid prices: ${checked.message}`);
  return checked.prices;
}

/** The default registry: every built-in tool, file tools confined to `root`. */
export function createDefaultRegistry(root: string = process.cwd()): ToolRegistry {
  return new ToolRegistry(createBuiltinTools({ root }));
}

function registryOf(options: DurableAgentPluginOptions): ToolRegistry {
  if (options.tools instanceof ToolRegistry) return options.tools;
  if (options.tools) return new ToolRegistry(options.tools);
  return createDefaultRegistry(options.toolsRoot);
}

/**
 * The agent's worker side as a Temporal plugin: add it to any `Worker.create({ plugins: [...] })` and the worker
 * runs the agent's activities (model calls, tools, summaries, critic). A worker that names no workflows of its own
 * (no `workflowsPath`, no `workflowBundle`) gets the stock agent workflow; a worker with its own workflows keeps
 * them, and they run the loop through `durable-react-agent/workflow`.
 */
export class DurableAgentPlugin extends SimplePlugin {
  /** The worker's MCP servers and their tools, when `mcpServers` named any. */
  readonly mcp: McpToolSource | undefined;

  constructor(options: DurableAgentPluginOptions = {}) {
    useLinearTimeRegexFallback();
    const env = readEnv();
    const registry = registryOf(options);
    // The servers' roots are the folder the built-in file tools read: one answer to what the agent may see.
    const mcp = options.mcpServers
      ? new McpToolSource(parseMcpServers(options.mcpServers), undefined, [options.toolsRoot ?? process.cwd()])
      : undefined;
    if (mcp) registry.attach(mcp);
    const remoteOrigin = remoteToolsOrigin(options.remoteTools, 'remoteTools');
    for (const tool of parseRemoteTools(options.remoteTools ?? [], remoteOrigin)) {
      // A registry reused by a restarted worker already holds them.
      if (registry.get(tool.name)?.remote !== undefined) continue;
      try {
        registry.register(tool);
      } catch (error) {
        // Whatever the registry refuses (a name another tool has, usually a built-in's, or one the loop keeps for its
        // own actions) is the declaration's mistake: said where it was declared, as the other declaration errors are.
        const why =
          error instanceof DuplicateToolError
            ? `"${tool.name}" is already the name of another tool of this worker (a built-in or one of its own)`
            : error instanceof Error
              ? error.message
              : String(error);
        throw new RemoteToolConfigError(`${remoteOrigin}: ${why}; declare the remote tool under another name`);
      }
    }
    const tuning = runTuningOf(options.modelCalls, options.runAhead);
    const timeoutMs = requestTimeoutMs(tuning);
    const openai =
      options.openai ??
      createOpenAIClient({
        apiKey: env.openaiApiKey,
        baseURL: env.openaiBaseURL,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
    const defaultModel = options.defaultModel ?? env.openaiModel;
    super({
      name: 'durable-react-agent',
      activities: createActivities({
        openai,
        defaultModel,
        registry,
        tuning,
        ...(options.promptCacheChars !== undefined ? { promptCacheChars: options.promptCacheChars } : {}),
        prices: pricesOf(options.prices),
        verifiesSignatures: (options.approvalKeys?.length ?? 0) > 0,
      }),
      // The worker's stdio MCP servers stop when it does; a registry another worker reuses no longer offers them.
      runContext: async (next) => {
        try {
          await next();
        } finally {
          if (mcp) registry.detach(mcp);
          await mcp?.close();
        }
      },
    });
    this.mcp = mcp;
    this.serves = { openai, defaultModel, registry };
    this.stackTraces = options.workflowStackTraces ?? false;
    this.approvalKeys = options.approvalKeys ?? [];
  }

  private readonly stackTraces: boolean;
  private readonly approvalKeys: readonly ApprovalKey[];
  private readonly serves: { openai: OpenAI; defaultModel: string; registry: ToolRegistry };

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const { logger } = Runtime.instance();
    const { openai, defaultModel, registry } = this.serves;
    for (const [level, line] of startupLines(options.taskQueue, openai, defaultModel, registry)) logger[level](line);
    const configured = withVerifier(withCacheBound(super.configureWorker(options)), this.approvalKeys);
    if (configured.workflowsPath !== undefined || configured.workflowBundle !== undefined)
      return withCounter(configured);
    const { workflowsPath, preloadModules, failureConverterPath } = stockBundleOptions({
      stackTraces: this.stackTraces,
    });
    const bundlerOptions = configured.bundlerOptions ?? {};
    // The worker bundles with its data converter's failure converter: the stock one unless the worker names its own.
    const dataConverter = configured.dataConverter ?? {};
    return withCounter({
      ...configured,
      dataConverter: { failureConverterPath, ...dataConverter },
      workflowsPath,
      bundlerOptions: {
        ...bundlerOptions,
        preloadModules: [...preloadModules, ...(bundlerOptions.preloadModules ?? [])],
      },
    });
  }
}

/**
 * What a worker says when it starts: its queue, model, endpoint and tools, and a warning when its model calls cannot
 * work (OpenAI's endpoint with no key: every run would spend half a minute in retries before saying so).
 */
export function startupLines(
  taskQueue: string,
  openai: OpenAI,
  defaultModel: string,
  registry: ToolRegistry,
): Array<['info' | 'warn', string]> {
  const tools = registry.list().map((tool) => tool.name);
  // A client of the caller's own may be any object shaped like one (a wrapper, a test double) without these.
  const { baseURL, apiKey } = openai as Partial<Pick<OpenAI, 'baseURL' | 'apiKey'>>;
  const endpoint = baseURL ?? 'the endpoint of its own client';
  const lines: Array<['info' | 'warn', string]> = [
    [
      'info',
      `durable-react-agent worker on task queue "${taskQueue}": model ${defaultModel} at ${endpoint}, ` +
        `${tools.length} tools (${tools.join(', ')})`,
    ],
  ];
  if (baseURL?.replace(/\/+$/, '') === DEFAULT_OPENAI_BASE_URL && apiKey === NO_API_KEY) {
    lines.push([
      'warn',
      `no OPENAI_API_KEY: every model call to ${DEFAULT_OPENAI_BASE_URL} will be refused. Set OPENAI_API_KEY, or ` +
        'OPENAI_BASE_URL for another OpenAI-compatible endpoint (a local one may need no key).',
    ]);
  }
  return lines;
}

/**
 * Adds the engine-action counter to the workflows a worker bundles at start (its own ones too: they may run the agent
 * workflow). A prebuilt bundle carries it from `stockBundleOptions()`; one built without it counts no engine actions,
 * and its runs say so in the worker's log.
 */
function withCounter(options: WorkerOptions): WorkerOptions {
  if (options.workflowsPath === undefined) return options;
  const modules = options.interceptors?.workflowModules ?? [];
  if (modules.includes(ENGINE_ACTION_COUNTER_PATH)) return options;
  return {
    ...options,
    interceptors: { ...options.interceptors, workflowModules: [...modules, ENGINE_ACTION_COUNTER_PATH] },
  };
}

/**
 * Puts the decision verifier innermost among the worker's codecs (first: it decodes last, after decryption). Always,
 * keys or not: a worker that did not verify must still overwrite a verdict a sender forged. The verifier reads
 * payloads with the payload converter the workflows use (a `payloadConverterPath` module is loaded as the worker
 * loads it), so it judges exactly what the decide update's validator will read.
 */
function withVerifier(options: WorkerOptions, keys: readonly ApprovalKey[]): WorkerOptions {
  const converter = options.dataConverter ?? {};
  const codecs = converter.payloadCodecs ?? [];
  if (codecs.some((codec) => codec instanceof DecisionVerifierCodec)) return options;
  const { payloadConverter } = loadDataConverter({ payloadConverterPath: converter.payloadConverterPath });
  const verifier = new DecisionVerifierCodec(keys, payloadConverter);
  return { ...options, dataConverter: { ...converter, payloadCodecs: [verifier, ...codecs] } };
}

function withCacheBound(options: WorkerOptions): WorkerOptions {
  return options.maxCachedWorkflows === undefined
    ? { ...options, maxCachedWorkflows: DEFAULT_MAX_CACHED_WORKFLOWS }
    : options;
}
