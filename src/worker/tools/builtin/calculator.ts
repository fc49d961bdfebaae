import { z } from 'zod';
import { defineTool } from '../define-tool';
import {
  evaluateExpression,
  MAX_EXPRESSION_LENGTH,
  SUPPORTED_CONSTANTS,
  SUPPORTED_FUNCTIONS,
} from './expression-parser';

const calculatorSchema = z.object({
  expression: z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH)
    .describe('Arithmetic expression, e.g. "(2 + 3) * sqrt(16) / 2^3"'),
});

/**
 * Binary floating point turns 0.1 + 0.2 into 0.30000000000000004; a model reading that may "correct" it wrongly.
 * Fractions are shown with 15 significant digits (what a double reliably holds); integers are left exact.
 */
function tidy(value: number): number {
  if (Number.isInteger(value)) return value;
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** Evaluates arithmetic safely (own parser, no eval); returns `{ expression, result }`. */
export const calculatorTool = defineTool({
  name: 'calculator',
  description:
    'Evaluate an arithmetic expression exactly instead of computing it in your head. ' +
    'Supports numbers (1.5, 2e3), + - * / % ^ (power, right-associative), parentheses, ' +
    `constants ${SUPPORTED_CONSTANTS.join(', ')} and functions ${SUPPORTED_FUNCTIONS.join(', ')} ` +
    '(log is base 10, ln is natural, trig uses radians, round(x, digits) is allowed). No variables or code.',
  category: 'math',
  schema: calculatorSchema,
  examples: [{ expression: '(2 + 3) * 4' }, { expression: 'sqrt(2) * 10^3' }, { expression: 'round(100 / 7, 2)' }],
  handler: ({ expression }) => ({ expression, result: tidy(evaluateExpression(expression)) }),
  // Pure, fast and idempotent: a local activity saves a task-queue round trip per call, and running ahead inside the
  // model call (it changes nothing) saves the step its own activity.
  local: true,
  readOnly: true,
});
