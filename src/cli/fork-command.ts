import type { AgentRunHandle } from '../client/agent-client';
import { decimal, parseCommandArgs, readConfigFile, positiveInteger, UsageError } from './args';
import { followRun, type StackOptions } from './run-command';

type Say = (line: string) => void;

/** Options both commands take: what to change, and how to run (the `run` command's own). */
const SHARED = {
  config: { type: 'string' },
  model: { type: 'string' },
  json: { type: 'boolean', default: false },
  'no-worker': { type: 'boolean', default: false },
  demo: { type: 'boolean', default: false },
  root: { type: 'string' },
  'no-interactive': { type: 'boolean', default: false },
  'task-queue': { type: 'string' },
  address: { type: 'string' },
} as const;

function parse<O extends Record<string, { type: 'string' | 'boolean'; default?: string | boolean }>>(
  command: string,
  argv: string[],
  options: O,
) {
  const parsed = parseCommandArgs(argv, { ...SHARED, ...options });
  const [workflowId, ...extra] = parsed.positionals;
  if (!workflowId || extra.length > 0) throw new UsageError(`${command} needs exactly one workflow ID`);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const stack: StackOptions = {
    json: values.json === true,
    worker: values['no-worker'] !== true,
    demo: values.demo === true,
    toolsRoot: typeof values.root === 'string' ? values.root : process.cwd(),
    interactive: values['no-interactive'] !== true && process.stdin.isTTY === true,
    taskQueue: typeof values['task-queue'] === 'string' ? values['task-queue'].trim() || undefined : undefined,
    address: typeof values.address === 'string' ? values.address : undefined,
  };
  const config = typeof values.config === 'string' ? readConfigFile(values.config) : {};
  if (typeof values.model === 'string') config.model = values.model;
  return { workflowId, values, stack, config };
}

/**
 * Where the new run goes: this process's own worker's queue, a --task-queue, or (with --no-worker and none) the
 * parent's queue, whose workers have the parent's tools.
 */
function queueOf(stack: StackOptions, own: string): { taskQueue?: string } {
  return stack.worker || stack.taskQueue ? { taskQueue: own } : {};
}

function announce(run: AgentRunHandle, line: string, say: Say): AgentRunHandle {
  say(`Run ${run.workflowId} started: ${line}`);
  return run;
}

/** `durable-react-agent fork <id> --from-step k [--observation TEXT]`: a new run from a recorded step. */
export async function forkCommand(argv: string[], out: Say, say: Say): Promise<number> {
  const { workflowId, values, stack, config } = parse('fork', argv, {
    'from-step': { type: 'string' },
    observation: { type: 'string' },
  });
  const fromStep = positiveInteger('from-step', values['from-step'] as string | undefined);
  if (fromStep === undefined) throw new UsageError('fork needs --from-step N (a step number from `trace`)');
  const observation = values.observation as string | undefined;
  return followRun(stack, out, say, async (agents, demoModel) => {
    const run = await agents.fork(workflowId, {
      fromStep,
      ...(observation !== undefined ? { observation } : {}),
      config: demoModel ? { ...config, model: demoModel } : config,
      ...queueOf(stack, agents.taskQueue),
    });
    const edited = observation !== undefined ? ', its observation edited' : '';
    return announce(run, `forked from ${workflowId} after step ${fromStep}${edited}`, say);
  });
}

/** `durable-react-agent continue <id> [--max-iterations N] [--token-budget N] [--cost USD] [--timeout S]`. */
export async function continueCommand(argv: string[], out: Say, say: Say): Promise<number> {
  const { workflowId, values, stack, config } = parse('continue', argv, {
    'max-iterations': { type: 'string' },
    'token-budget': { type: 'string' },
    cost: { type: 'string' },
    timeout: { type: 'string' },
  });
  const maxIterations = positiveInteger('max-iterations', values['max-iterations'] as string | undefined);
  const tokenBudget = positiveInteger('token-budget', values['token-budget'] as string | undefined);
  const cost = decimal('cost', values.cost as string | undefined);
  const timeoutSeconds = positiveInteger('timeout', values.timeout as string | undefined);
  return followRun(stack, out, say, async (agents, demoModel) => {
    const run = await agents.continue(workflowId, {
      ...(maxIterations !== undefined ? { maxIterations } : {}),
      ...(tokenBudget !== undefined ? { tokenBudget } : {}),
      ...(cost !== undefined ? { cost } : {}),
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      config: demoModel ? { ...config, model: demoModel } : config,
      ...queueOf(stack, agents.taskQueue),
    });
    return announce(run, `continues ${workflowId}`, say);
  });
}
