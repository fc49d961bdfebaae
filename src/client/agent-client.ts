import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { auditTrail, type AuditEntry, type AuditOptions } from './audit';
import { signerFromEnv, type DecisionSigner } from '../common/decision-signing';
import { followPending, type PendingHandle } from './pending-handles';
import type { z } from 'zod';
import { dataConverterFromEnv } from '../common/data-converter';
import { readEnv } from '../common/env';
import { stitchTrace } from './run-chain';
import { startMetadata } from './run-metadata';
import { checkAttached } from './attach';
import { validateAgentConfig, type AgentConfig } from '../shared/agent-config';
import type { ResolvedConfig } from '../shared/config';
import { AGENT_WORKFLOW_TYPE, getScratchpadQuery, getStatusQuery, getTraceQuery } from '../shared/messages';
import { AgentStatusKey } from '../shared/search-attributes';
import type { AgentStatus, AgentWorkflowInput, ReActResult, ReActTrace } from '../shared/types';
import { AgentRunError, InvalidConfigError, ServerUnreachableError, unreachableServerMessage } from './errors';
import { runDecisions, type RunDecisions } from './run-decisions';
import { listPending, type ListPendingOptions, type PendingItem, type Sender } from './decisions';
import { explainMissingSearchAttributes, queryText, toJsonSchema, toRunError, type AgentQuery } from './start-input';

export type { AgentQuery } from './start-input';
import { followEvents, type EventsGap, type EventsOptions } from './events';
import { followWithChildren, type ChildEvent } from './child-events';
import { askInConversation, sendMessage, type TurnAnswer } from './conversation';
import type { AgentEvent } from '../shared/events';
import type { Channel } from '../shared/identity';
import { queryRun, warnWhileNoWorker } from './query';
import { chainStart, readClosedRun, scratchpadOfTrace, statusOfClosedRun } from './closed-run';
import { continueInput, forkInput, readParent, type ContinueOptions, type ForkOptions, type ParentRun } from './fork';

/** A started (or looked-up) run, with the decisions it waits for ({@link RunDecisions}). */
export interface AgentRunHandle extends RunDecisions {
  readonly workflowId: string;
  /** Waits for the run to finish; throws AgentRunError when it failed. */
  result(): Promise<ReActResult>;
  getTrace(): Promise<ReActTrace>;
  getScratchpad(): Promise<string>;
  getStatus(): Promise<AgentStatus>;
  /** Requests cancellation; the run stops with reason `cancelled` and returns its partial trace. */
  cancel(): Promise<void>;
  /**
   * The run's events in order, live: resumes after `after` (a seq), follows continue-as-new, and ends after the run's
   * `terminated` event; an {@link EventsGap} stands for events the run no longer held when the reader got to them.
   */
  events(options?: EventsOptions): AsyncGenerator<AgentEvent | EventsGap, void, undefined>;
  /**
   * Sends a follow-up message to a conversation (a run started with `conversation.idleTimeout`); resolves with the
   * turn that will answer it once the run has queued it. Refused (MessageRefusedError) by a run that takes none.
   */
  send(text: string): Promise<{ turn: number }>;
  /** Sends a message and waits for its turn to end (following the event stream): the turn's answer and reason. */
  ask(text: string): Promise<TurnAnswer>;
  /**
   * What the run and its running subagents wait for, each item once as it appears, with the decisions that settle
   * it (`for await (const p of run.pending()) await p.approve()`); ends when the run closes.
   */
  pending(options?: { signal?: AbortSignal }): AsyncGenerator<PendingHandle, void, undefined>;
  /** The events of the run and of the subagents it starts, interleaved, each child's tagged with its workflow ID. */
  eventsWithChildren(options?: EventsOptions): AsyncGenerator<AgentEvent | EventsGap | ChildEvent>;
  /**
   * Who decided what in the run, in order: every decision, answer and budget decision its history holds. `verify`
   * (verification keys, e.g. `readApprovalKeysFile(...)`) re-checks each one's signature: signed or not, by whom, valid.
   */
  audit(options?: AuditOptions): Promise<AuditEntry[]>;
}

/** Options of {@link AgentClient.start}. */
export interface StartOptions {
  /** Defaults to `agent-<uuid>`. */
  workflowId?: string;
  /** The final answer must match this zod schema (sent as JSON Schema; `result.output` holds the data). */
  outputSchema?: z.ZodType;
  /** Start your own workflow that calls `runReActLoop` (it takes the same input) instead of the stock agent. */
  workflowType?: string;
  /** Named inputs (the query given as an object) must match this zod schema; refused before the run starts. */
  inputSchema?: z.ZodType;
  /**
   * When a run with this `workflowId` is running: `fail` (default) throws Temporal's
   * WorkflowExecutionAlreadyStartedError; `attach` returns that run's handle and starts nothing (Temporal's
   * USE_EXISTING conflict policy), so a webhook handler that retries with its business key gets the same run. A
   * running run started with another query (whitespace aside), config, workflow type or task queue is not returned:
   * AttachRefusedError says what differs. Once that run has closed, the same ID starts a new run.
   */
  ifRunning?: 'fail' | 'attach';
}

/** Options of the {@link AgentClient} constructor. */
export interface AgentClientOptions {
  client: Client;
  taskQueue?: string;
  ownsConnection?: boolean;
  searchAttributes?: boolean;
  /** Who decides through this client (see the constructor). */
  identity?: string;
  roles?: string[];
  channel?: Channel;
  /** Signs every decision this client sends (default: the key AGENT_SIGNING_KEY_ID and AGENT_SIGNING_KEY_FILE name). */
  signer?: DecisionSigner;
}

/**
 * The typed API services and the CLI use to start runs and list what waits for a person; everything about one run
 * (its result, trace, events, decisions) is on its {@link handle}.
 */
export class AgentClient {
  /** The underlying Temporal client, for anything this API does not cover. */
  readonly client: Client;
  /** Who this client's decisions and answers say they come from (recorded in the run's history and trace). */
  readonly sender: Sender;
  readonly taskQueue: string;
  private readonly ownsConnection: boolean;
  private readonly searchAttributes: boolean;

  /**
   * Wraps an existing Temporal client; `ownsConnection` makes {@link close} close its connection. Runs are started
   * with the AgentStatus search attribute unless `searchAttributes` is false (a cluster without them registered;
   * listPending then finds nothing). Decisions carry `identity` (else AGENT_IDENTITY, else the Temporal client's own
   * identity, `pid@host`), `roles` (else AGENT_ROLES) and `channel` (default `client`), signed by `signer` (else
   * the AGENT_SIGNING_KEY_* key, else unsigned).
   */
  constructor(options: AgentClientOptions) {
    const env = readEnv();
    const roles = options.roles ?? env.roles;
    const signer = options.signer ?? signerFromEnv(env);
    this.client = options.client;
    this.sender = {
      identity: options.identity ?? env.identity ?? options.client.options.identity,
      channel: options.channel ?? 'client',
      ...(roles.length > 0 ? { roles } : {}),
      ...(signer ? { signer } : {}),
    };
    this.taskQueue = options.taskQueue ?? env.taskQueue;
    this.ownsConnection = options.ownsConnection ?? false;
    this.searchAttributes = options.searchAttributes ?? true;
  }

  /** Closes the connection this client opened in {@link connect}; a no-op for a wrapped client. */
  async close(): Promise<void> {
    if (this.ownsConnection) await this.client.connection.close();
  }

  /** Connects to TEMPORAL_ADDRESS (or the given address) and namespace. */
  static async connect(
    options: { address?: string; namespace?: string } & Omit<AgentClientOptions, 'client' | 'ownsConnection'> = {},
  ): Promise<AgentClient> {
    const env = readEnv();
    const address = options.address ?? env.temporalAddress ?? 'localhost:7233';
    const connection = await Connection.connect({ address }).catch((error: unknown) => {
      const unreachable = unreachableServerMessage(error, address);
      throw unreachable ? new ServerUnreachableError(unreachable, { cause: error }) : error;
    });
    const client = new Client({
      connection,
      namespace: options.namespace ?? env.temporalNamespace,
      dataConverter: dataConverterFromEnv(env),
    });
    return new AgentClient({
      client,
      taskQueue: options.taskQueue ?? env.taskQueue,
      ownsConnection: true,
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
      ...(options.roles !== undefined ? { roles: options.roles } : {}),
      ...(options.channel !== undefined ? { channel: options.channel } : {}),
      ...(options.signer !== undefined ? { signer: options.signer } : {}),
    });
  }

  /**
   * Checks a config without starting anything and returns it resolved (every default applied: the shape a run's
   * history records); throws InvalidConfigError listing every bad field.
   */
  static validateConfig(config: AgentConfig | undefined): ResolvedConfig {
    const validation = validateAgentConfig(config);
    if (!validation.ok) throw new InvalidConfigError(validation.message);
    return validation.config;
  }

  /** Starts a run. The config is validated first, so a bad field never reaches the server. */
  async start(query: AgentQuery, config: AgentConfig = {}, options: StartOptions = {}): Promise<AgentRunHandle> {
    const withSchema = options.outputSchema
      ? { ...config, output: { ...config.output, schema: toJsonSchema(options.outputSchema) } }
      : config;
    const validated = AgentClient.validateConfig(withSchema);
    // The resolved config (defaults applied) is what crosses the wire: the history then says exactly what the run
    // was configured with, and a worker whose defaults changed since replays it the same way.
    const input: AgentWorkflowInput = { query: queryText(query, validated, options.inputSchema), config: validated };
    return this.launch(input, validated, options.workflowId, options.workflowType ?? AGENT_WORKFLOW_TYPE, {
      attach: options.ifRunning === 'attach',
    });
  }

  /**
   * Starts a new run from steps 1..`fromStep` of another (running or finished, across its continue-as-new chain):
   * those steps are taken as recorded, with no model call and no tool run for them, step `fromStep`'s observation
   * optionally replaced; the run goes on from there. Its trace names its parent (`trace.lineage`).
   */
  async fork(workflowId: string, options: ForkOptions): Promise<AgentRunHandle> {
    const parent = await this.readParent(workflowId);
    return this.startSeeded(parent, forkInput(parent, options), options, 'fork');
  }

  /**
   * Continues a finished run that stopped at a limit (max_iterations, token_budget, timeout) or stalled, as a new run
   * with every step and total carried and the given limits raised. Its trace names its parent (`trace.lineage`).
   */
  async continue(workflowId: string, options: ContinueOptions = {}): Promise<AgentRunHandle> {
    const parent = await this.readParent(workflowId);
    return this.startSeeded(parent, continueInput(parent, parent.trace.terminationReason, options), options, 'cont');
  }

  private readParent(workflowId: string): Promise<ParentRun> {
    const handle = this.handle(workflowId);
    return readParent(this.client, workflowId, async () => {
      const { status } = await this.client.workflow.getHandle(workflowId).describe();
      if (status.name !== 'COMPLETED') return { trace: await handle.getTrace() };
      const result = await handle.result();
      return { trace: result.trace, tokenUsage: result.tokenUsage };
    });
  }

  private async startSeeded(
    parent: ParentRun,
    input: AgentWorkflowInput,
    options: { workflowId?: string; taskQueue?: string },
    tag: string,
  ): Promise<AgentRunHandle> {
    // The parent's config is resolved already (it is read from its history), with the overrides flattened into it.
    const checked = validateAgentConfig(input.config);
    if (!checked.ok) throw new InvalidConfigError(checked.message);
    const { config } = checked;
    const workflowId = options.workflowId ?? `${parent.workflowId}-${tag}-${randomUUID().slice(0, 8)}`;
    const taskQueue = options.taskQueue ?? parent.taskQueue;
    return this.launch({ ...input, config }, config, workflowId, parent.workflowType, { taskQueue });
  }

  private async launch(
    input: AgentWorkflowInput,
    config: ResolvedConfig,
    workflowId = `agent-${randomUUID()}`,
    type: string,
    { taskQueue = this.taskQueue, attach = false }: { taskQueue?: string; attach?: boolean } = {},
  ): Promise<AgentRunHandle> {
    const metadata = startMetadata(input.query, config, input.seed?.lineage);
    const typedSearchAttributes = this.searchAttributes ? [{ key: AgentStatusKey, value: 'Running' }] : undefined;
    try {
      await this.client.workflow.start(type, {
        taskQueue,
        workflowId,
        args: [input],
        typedSearchAttributes,
        ...(attach ? { workflowIdConflictPolicy: 'USE_EXISTING' as const } : {}),
        ...metadata,
      });
    } catch (error) {
      throw explainMissingSearchAttributes(error);
    }
    if (attach)
      await checkAttached(this.client, workflowId, { workflowType: type, taskQueue, query: input.query, config });
    return this.handle(workflowId);
  }

  /** A handle to an existing run. */
  handle(workflowId: string): AgentRunHandle {
    const workflow: WorkflowHandle = this.client.workflow.getHandle(workflowId);
    const result = async (): Promise<ReActResult> => {
      let raw: ReActResult;
      const stopWarning = warnWhileNoWorker(workflow);
      try {
        raw = (await workflow.result()) as ReActResult;
      } catch (error) {
        const failure = toRunError(error, workflowId);
        if (!(failure instanceof AgentRunError) || !failure.trace) throw failure;
        const trace = await stitchTrace(this.client, workflowId, failure.trace);
        throw new AgentRunError(failure.message, workflowId, failure.type, trace);
      } finally {
        stopWarning();
      }
      return { ...raw, trace: await stitchTrace(this.client, workflowId, raw.trace) };
    };
    return {
      ...runDecisions(this.client, this.sender, workflowId),
      workflowId,
      result,
      // A finished run is read from its history (its result, or the failure it attached), so it is readable without
      // a worker; a running one (or one terminated from outside) is asked.
      getTrace: async () => {
        const closed = await readClosedRun(this.client, workflowId);
        if (closed) return closed.trace;
        return stitchTrace(this.client, workflowId, await queryRun(workflow, getTraceQuery));
      },
      getScratchpad: async () => {
        const closed = await readClosedRun(this.client, workflowId);
        if (closed) return scratchpadOfTrace(closed.trace, (await closed.start()).config);
        // A running run's query renders only its own steps: after a hand-over the earlier runs' are stitched in.
        const trace = await queryRun(workflow, getTraceQuery);
        if (trace.run <= 1) return queryRun(workflow, getScratchpadQuery);
        const stitched = await stitchTrace(this.client, workflowId, trace);
        return scratchpadOfTrace(stitched, (await chainStart(this.client, workflowId)).config);
      },
      getStatus: async () => {
        const closed = await readClosedRun(this.client, workflowId);
        if (closed) return statusOfClosedRun(closed.trace, (await closed.start()).config);
        return queryRun(workflow, getStatusQuery);
      },
      cancel: async () => {
        await workflow.cancel();
      },
      events: (options) => followEvents(this.client, workflowId, options),
      send: (text) => sendMessage(workflow, text),
      ask: (text) => askInConversation(this.client, workflow, text),
      pending: (options) => followPending(this.client, (id) => this.handle(id), workflowId, options),
      eventsWithChildren: (options) => followWithChildren(this.client, workflowId, options),
      audit: (options = {}) => auditTrail(this.client, workflowId, options),
    };
  }

  /** Every pending approval and question across running agents (a run that does not answer in time is left out). */
  listPending(options: ListPendingOptions = {}): Promise<PendingItem[]> {
    return listPending(this.client, options);
  }
}

export type { DecisionBody } from './run-decisions';
