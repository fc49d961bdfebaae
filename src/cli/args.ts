import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { mergeConfig, type AgentConfig } from '../shared/agent-config';
import { DurableAgentError } from '../shared/errors';
import type { Channel } from '../shared/identity';
import { readEnv, splitList } from '../common/env';

/** Where the CLI's embedded dev server keeps its state between runs. */
export const DEV_SERVER_DB = '.data/temporal.db';

/** The commands that act on existing runs: the human side of the loop, plus trace/result/cancel. */
export const DECISION_COMMANDS = [
  'pending',
  'approve',
  'reject',
  'edit',
  'respond',
  'answer',
  'trace',
  'cost',
  'result',
  'cancel',
  'events',
  'send',
  'audit',
  'raise',
  'stop',
] as const;

/** A command-line mistake: exit code 2 with a one-line message. */
export class UsageError extends DurableAgentError {
  override readonly name = 'UsageError';
}

/** What `run` was asked to do. */
export interface RunOptions {
  query: string;
  config: AgentConfig;
  json: boolean;
  worker: boolean;
  demo: boolean;
  toolsRoot: string;
  /** Prompt for decisions on this terminal (false with --no-interactive or when stdin is not a terminal). */
  interactive: boolean;
  /** --task-queue: join this queue instead of one of the run's own. */
  taskQueue: string | undefined;
}

/**
 * Who the CLI's decisions say they come from: --as, else AGENT_IDENTITY, else the OS user; roles from --roles, else
 * AGENT_ROLES. Recorded in the run's history with the channel `cli`.
 */
export function cliIdentity(
  as: string | undefined,
  roles: string | undefined,
): { identity: string; roles: string[]; channel: Channel } {
  const env = readEnv();
  const identity = as?.trim() || env.identity || osUser();
  return { identity, roles: roles !== undefined ? splitList(roles) : env.roles, channel: 'cli' };
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown-user'; // no passwd entry for this uid (some containers)
  }
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new UsageError(`--${name} expects a whole number, got "${value}"`);
  return parsed;
}

/** A flag that must be a whole number above 0, or absent. */
export function positiveInteger(name: string, value: string | undefined): number | undefined {
  const parsed = integer(name, value);
  if (parsed !== undefined && parsed < 1)
    throw new UsageError(`--${name} expects a whole number above 0, got "${value}"`);
  return parsed;
}

/** A flag that must be a whole number of 0 or more, or absent. */
export function nonNegativeInteger(name: string, value: string | undefined): number | undefined {
  const parsed = integer(name, value);
  if (parsed !== undefined && parsed < 0)
    throw new UsageError(`--${name} expects a whole number of 0 or more, got "${value}"`);
  return parsed;
}

/** A flag that must be a number, or absent (its range is the config schema's to check). */
export function decimal(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed))
    throw new UsageError(`--${name} expects a number, got "${value}"`);
  return parsed;
}

/** Reads a --config JSON file; a missing or broken file is a usage error. */
export function readConfigFile(file: string): AgentConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --config file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as AgentConfig;
  } catch (error) {
    throw new UsageError(`--config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * node:util's parseArgs, its mistakes turned into UsageError (exit 2, one line). Positionals are allowed unless
 * `positionals: false`; `negative`: `--no-<flag>` sets a boolean flag false.
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  { positionals = true, negative = false }: { positionals?: boolean; negative?: boolean } = {},
): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; allowNegative: boolean; options: O }>> {
  try {
    // Typed as allowing positionals either way: the values' types do not depend on it, and none are given when not.
    return parseArgs<{ args: string[]; allowPositionals: true; allowNegative: boolean; options: O }>({
      args: argv,
      allowPositionals: positionals as true,
      allowNegative: negative,
      options,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A port flag's value (0: any free port); anything else is a usage error. */
export function portFlag(flag: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--${flag} expects a port number, got "${value}"`);
  return port;
}

/** Parses `run` arguments; flags override the --config file. Throws UsageError on mistakes. */
export function parseRunArgs(argv: string[]): RunOptions {
  const parsed = parseCommandArgs(argv, {
    tools: { type: 'string' },
    'max-iterations': { type: 'string' },
    'stall-threshold': { type: 'string' },
    timeout: { type: 'string' },
    'token-budget': { type: 'string' },
    cost: { type: 'string' },
    model: { type: 'string' },
    temperature: { type: 'string' },
    'max-tokens': { type: 'string' },
    'success-phrase': { type: 'string', multiple: true },
    'failure-phrase': { type: 'string', multiple: true },
    'tool-calling': { type: 'string' },
    config: { type: 'string' },
    root: { type: 'string' },
    json: { type: 'boolean', default: false },
    'no-worker': { type: 'boolean', default: false },
    demo: { type: 'boolean', default: false },
    'no-interactive': { type: 'boolean', default: false },
    'task-queue': { type: 'string' },
    confirm: { type: 'string', multiple: true },
  });
  const { values, positionals } = parsed;
  const query = positionals.join(' ').trim();
  if (query === '' && !values.demo) throw new UsageError('run needs a query: durable-react-agent run "<query>"');
  const config: AgentConfig = values.config ? readConfigFile(values.config) : {};
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && !(timeout > 0))
    throw new UsageError(`--timeout expects seconds > 0, got "${values.timeout}"`);
  const phrases = (outcome: 'success' | 'failure', texts: string[] | undefined) =>
    (texts ?? []).map((text) => ({ type: 'thought_contains' as const, text, outcome }));
  const stops = [...phrases('success', values['success-phrase']), ...phrases('failure', values['failure-phrase'])];
  // Ranges are the config schema's to check, so a flag and a --config file are refused with the same words.
  const overrides = {
    tools: values.tools
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    model: values.model,
    // A file's stopWhen that is no list is left for the schema to refuse, not replaced by the flags.
    stopWhen:
      stops.length > 0 && Array.isArray(config.stopWhen ?? []) ? [...(config.stopWhen ?? []), ...stops] : undefined,
    limits: {
      maxIterations: integer('max-iterations', values['max-iterations']),
      stallThreshold: integer('stall-threshold', values['stall-threshold']),
      tokenBudget: integer('token-budget', values['token-budget']),
      cost: decimal('cost', values.cost),
      timeoutSeconds: timeout,
    },
    modelSettings: {
      temperature: decimal('temperature', values.temperature),
      maxTokens: integer('max-tokens', values['max-tokens']),
      toolCalling: values['tool-calling'] as NonNullable<AgentConfig['modelSettings']>['toolCalling'],
    },
    approvals: { require: values.confirm },
  };
  return {
    query,
    config: mergeConfig(config, overrides),
    json: values.json,
    worker: !values['no-worker'],
    demo: values.demo,
    toolsRoot: values.root ?? process.cwd(),
    interactive: !values['no-interactive'] && process.stdin.isTTY === true,
    taskQueue: values['task-queue']?.trim() || undefined,
  };
}
