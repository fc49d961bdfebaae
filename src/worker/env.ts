import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseMcpServers, type McpServersConfig } from './mcp/config';
import { parseRemoteTools, withRemoteToolsOrigin, type RemoteToolConfig } from './tools/remote-tools';
import { z } from 'zod';
import { parseDuration } from '../shared/duration';
import { formatZodIssues } from '../shared/validation';
import { DurableAgentError, errorMessage } from '../shared/errors';
import type { ModelCallOptions } from './model-calls';
import { readApprovalKeysFile, type ApprovalKey } from '../common/decision-signing';
import type { PriceTable } from '../shared/cost';
import { checkPriceTable } from './prices';

/** Raised for a worker environment that cannot work; the message lists every bad variable on one line. */
export class InvalidEnvironmentError extends DurableAgentError {
  override readonly name = 'InvalidEnvironmentError';
}

const hostPort = z
  .string()
  .regex(/^[\w.-]+:\d{1,5}$|^\[[\da-fA-F:]+\]:\d{1,5}$/, 'expected host:port, e.g. 0.0.0.0:9464');
const duration = z.string().refine((value) => parseDuration(value) !== null, 'expected a duration like 30s or 2m');

const schema = z.object({
  WORKER_HEALTH_ADDRESS: hostPort.optional(),
  WORKER_METRICS_ADDRESS: hostPort.optional(),
  WORKER_SHUTDOWN_GRACE: duration.default('30s'),
  WORKER_TOOLS_ROOT: z
    .string()
    .refine((value) => existsSync(value) && statSync(value).isDirectory(), 'expected an existing folder')
    .optional(),
  WORKER_MCP_SERVERS: z
    .string()
    .refine((value) => existsSync(value), 'expected a JSON file of MCP servers')
    .optional(),
  WORKER_REMOTE_TOOLS: z
    .string()
    .refine((value) => existsSync(value), 'expected a JSON file of remote tools')
    .optional(),
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  WORKER_TOOLS_MODULE: z.string().optional(),
  WORKER_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  WORKER_MODEL_CALLS: z.enum(['activity', 'local']).optional(),
  WORKER_MODEL_TIMEOUT: duration.optional(),
  WORKER_MODEL_ATTEMPTS: z.coerce.number().int().min(1).max(1000).optional(),
  WORKER_OPEN_LOCALLY: z.enum(['true', 'false']).optional(),
  WORKER_RUN_AHEAD: z.enum(['true', 'false']).optional(),
  WORKER_APPROVAL_KEYS: z
    .string()
    .refine((value) => existsSync(value), 'expected a JSON file of approval keys')
    .optional(),
  WORKER_PRICES: z
    .string()
    .refine((value) => existsSync(value), 'expected a JSON file of model prices')
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url('expected a URL such as http://otel-collector:4318').optional(),
});

/** The worker process's own settings (the Temporal and model settings are in {@link readEnv}). */
export interface WorkerEnv {
  healthAddress: string | undefined;
  metricsAddress: string | undefined;
  shutdownGraceMs: number;
  toolsRoot: string | undefined;
  /** A module exporting the user's own tools, run beside the built-in ones (WORKER_TOOLS_MODULE, --tools-module). */
  toolsModule: string | undefined;
  /** Runs kept in the workflow cache (WORKER_MAX_CACHED_WORKFLOWS; else the plugin's default). */
  maxCachedWorkflows: number | undefined;
  /** The MCP servers file's contents, checked (WORKER_MCP_SERVERS). */
  mcpServers: McpServersConfig | undefined;
  /** The remote tools file's declarations, checked (WORKER_REMOTE_TOOLS). */
  remoteTools: RemoteToolConfig[] | undefined;
  logLevel: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  otlpEndpoint: string | undefined;
  /** The plugin's `modelCalls` (WORKER_MODEL_CALLS=local, WORKER_MODEL_TIMEOUT, WORKER_MODEL_ATTEMPTS, WORKER_OPEN_LOCALLY). */
  modelCalls: ModelCallOptions;
  /** The plugin's `runAhead` (WORKER_RUN_AHEAD); undefined keeps its default. */
  runAhead: boolean | undefined;
  /** The keys signed decisions are verified with (WORKER_APPROVAL_KEYS, a JSON file); none when unset. */
  approvalKeys: ApprovalKey[] | undefined;
  /** The plugin's `prices`: the WORKER_PRICES file's table, checked; undefined when unset (no prices). */
  prices: PriceTable | undefined;
}

/** Reads and checks a price table JSON file (WORKER_PRICES): `{ "<model>": { "input": 2.5, "output": 10 } }`. */
export function readPricesFile(file: string): PriceTable {
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InvalidEnvironmentError(`cannot read WORKER_PRICES file ${file}: ${(error as Error).message}`);
  }
  const checked = checkPriceTable(input);
  if (!checked.ok) throw new InvalidEnvironmentError(`Invalid WORKER_PRICES (${file}): ${checked.message}`);
  return checked.prices;
}

/** Reads and checks an MCP servers JSON file (WORKER_MCP_SERVERS); one line naming every problem. */
export function readMcpServersFile(file: string): McpServersConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InvalidEnvironmentError(`cannot read WORKER_MCP_SERVERS file ${file}: ${(error as Error).message}`);
  }
  try {
    return parseMcpServers(JSON.parse(text), `WORKER_MCP_SERVERS (${file})`);
  } catch (error) {
    throw new InvalidEnvironmentError(`Invalid worker environment: ${errorMessage(error)}`);
  }
}

/**
 * Reads and checks a remote tools JSON file (WORKER_REMOTE_TOOLS, an array of declarations); one line naming every
 * problem, so a mistake stops the worker at start instead of failing the runs that call the tool.
 */
export function readRemoteToolsFile(file: string): RemoteToolConfig[] {
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InvalidEnvironmentError(`cannot read WORKER_REMOTE_TOOLS file ${file}: ${(error as Error).message}`);
  }
  const origin = `WORKER_REMOTE_TOOLS (${file})`;
  try {
    parseRemoteTools(input, origin);
  } catch (error) {
    throw new InvalidEnvironmentError(`Invalid worker environment: ${errorMessage(error)}`);
  }
  return withRemoteToolsOrigin(input as RemoteToolConfig[], origin);
}

function approvalKeysOf(file: string): ApprovalKey[] {
  try {
    return readApprovalKeysFile(file);
  } catch (error) {
    throw new InvalidEnvironmentError(`Invalid worker environment: WORKER_APPROVAL_KEYS: ${(error as Error).message}`);
  }
}

/** Reads and validates the WORKER_* variables; empty values count as unset. */
export function readWorkerEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const present = Object.fromEntries(
    Object.keys(schema.shape).flatMap((key) => (env[key]?.trim() ? [[key, env[key]?.trim()]] : [])),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success)
    throw new InvalidEnvironmentError(`Invalid worker environment: ${formatZodIssues(parsed.error.issues)}`);
  const value = parsed.data;
  return {
    healthAddress: value.WORKER_HEALTH_ADDRESS,
    metricsAddress: value.WORKER_METRICS_ADDRESS,
    shutdownGraceMs: parseDuration(value.WORKER_SHUTDOWN_GRACE) ?? 30_000,
    toolsRoot: value.WORKER_TOOLS_ROOT,
    maxCachedWorkflows: value.WORKER_MAX_CACHED_WORKFLOWS,
    toolsModule: value.WORKER_TOOLS_MODULE,
    mcpServers: value.WORKER_MCP_SERVERS ? readMcpServersFile(value.WORKER_MCP_SERVERS) : undefined,
    remoteTools: value.WORKER_REMOTE_TOOLS ? readRemoteToolsFile(value.WORKER_REMOTE_TOOLS) : undefined,
    logLevel: value.WORKER_LOG_LEVEL,
    otlpEndpoint: value.OTEL_EXPORTER_OTLP_ENDPOINT,
    modelCalls: {
      ...(value.WORKER_MODEL_CALLS ? { local: value.WORKER_MODEL_CALLS === 'local' } : {}),
      ...(value.WORKER_MODEL_TIMEOUT ? { timeout: value.WORKER_MODEL_TIMEOUT } : {}),
      ...(value.WORKER_MODEL_ATTEMPTS !== undefined ? { maximumAttempts: value.WORKER_MODEL_ATTEMPTS } : {}),
      ...(value.WORKER_OPEN_LOCALLY ? { openLocally: value.WORKER_OPEN_LOCALLY === 'true' } : {}),
    },
    runAhead: value.WORKER_RUN_AHEAD === undefined ? undefined : value.WORKER_RUN_AHEAD === 'true',
    approvalKeys: value.WORKER_APPROVAL_KEYS ? approvalKeysOf(value.WORKER_APPROVAL_KEYS) : undefined,
    prices: value.WORKER_PRICES ? readPricesFile(value.WORKER_PRICES) : undefined,
  };
}
