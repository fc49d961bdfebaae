import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from '../src/testing/scripted-model';
import { ERROR_PREFIX } from '../src/shared/observation';
import { LEDGER_TOOL } from './ledger-tool';
import type { Random } from './random';

/** One scripted run: multiply two factors with the calculator, post the product and a bonus, report the balance. */
export interface LedgerPlan {
  account: string;
  factors: [number, number];
  bonus: number;
}

/** Model calls a ledger run makes when nothing goes wrong: calculator, two writes, the answer. */
export const LEDGER_RUN_TURNS = 4;
/** Ledger writes a ledger run makes. */
export const LEDGER_RUN_WRITES = 2;

/** A fresh plan with small random numbers. */
export function ledgerPlan(account: string, random: Random): LedgerPlan {
  return { account, factors: [random.int(2, 99), random.int(2, 99)], bonus: random.int(1, 999) };
}

/** The task a ledger run is started with (the scripted model does not read it; a person reading the UI does). */
export const ledgerQuery = (plan: LedgerPlan): string =>
  `Post ${plan.factors[0]} times ${plan.factors[1]} and a bonus of ${plan.bonus} to ${plan.account}, then report the balance`;

/** The balance a correct run ends with. */
export const expectedBalance = (plan: LedgerPlan): number => plan.factors[0] * plan.factors[1] + plan.bonus;

/** The final answer a correct run gives. */
export const expectedAnswer = (plan: LedgerPlan): string => `Balance of ${plan.account}: ${expectedBalance(plan)}`;

/** Tool results the model has seen so far, errors (e.g. refused malformed JSON) left out. */
export function toolResults(request: RecordedRequest): string[] {
  return request.messages
    .filter((message) => message.role === 'tool' && typeof message.content === 'string')
    .map((message) => message.content as string)
    .filter((content) => !content.startsWith(ERROR_PREFIX));
}

function numberField(observation: string | undefined, field: string): number {
  const value = (JSON.parse(observation ?? '{}') as Record<string, unknown>)[field];
  if (typeof value !== 'number') throw new Error(`tool result has no numeric "${field}": ${observation}`);
  return value;
}

/**
 * The turn a ledger run takes next, from the tool results it has seen (not from the request count, so a retried or
 * re-sent model call gets the same turn). The amounts come from the tool results, so a wrong or duplicated effect
 * shows in the answer. A step whose call was refused (bad JSON) is simply taken again.
 */
export function ledgerTurn(
  plan: LedgerPlan,
  request: RecordedRequest,
  tool: string = LEDGER_TOOL,
): { step: number; turn: ScriptedTurn } {
  const results = toolResults(request);
  const step = results.length;
  const [a, b] = plan.factors;
  const write = (entry: string, amount: number): ScriptedTurn['toolCalls'] => [
    { name: tool, args: { account: plan.account, entry, amount } },
  ];
  switch (step) {
    case 0:
      return {
        step,
        turn: {
          thought: `The first ledger entry is ${a} times ${b}; exact arithmetic needs the calculator.`,
          toolCalls: [{ name: 'calculator', args: { expression: `${a} * ${b}` } }],
        },
      };
    case 1:
      return {
        step,
        turn: {
          thought: 'The product is known, so it can be posted as the first entry.',
          toolCalls: write('product', numberField(results[0], 'result')),
        },
      };
    case 2:
      return {
        step,
        turn: {
          thought: 'The product is posted; the bonus is the second and last entry.',
          toolCalls: write('bonus', plan.bonus),
        },
      };
    default:
      return { step, turn: { answer: `Balance of ${plan.account}: ${numberField(results.at(-1), 'balance')}` } };
  }
}

/**
 * A responder playing a ledger run; `delayMs` slows every reply so a kill can land inside a model call; `tool` is the
 * write tool it calls (`ledger_write` unless said).
 */
export function ledgerResponder(
  plan: LedgerPlan,
  options: { delayMs?: number; onRequest?: (step: number) => void; tool?: string } = {},
): ScriptedResponder {
  return (request) => {
    const { step, turn } = ledgerTurn(plan, request, options.tool);
    options.onRequest?.(step);
    return options.delayMs ? { ...turn, delayMs: options.delayMs } : turn;
  };
}
