import { describe, it, expect } from 'vitest';
import {
  evaluateExpression,
  ExpressionError,
  MAX_EXPRESSION_LENGTH,
  MAX_NESTING_DEPTH,
} from '../../../src/worker/tools/builtin/expression-parser';

function errorOf(expression: string): ExpressionError {
  try {
    evaluateExpression(expression);
  } catch (error) {
    if (error instanceof ExpressionError) return error;
    throw error;
  }
  throw new Error(`expected "${expression}" to fail`);
}

describe('evaluateExpression', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 4', 3],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    // Python's power operator, as models trained on Python write it.
    ['2**10', 1024],
    ['2 ** 3 ** 2', 512],
    ['--3', 3],
    ['+4 - -1', 5],
    ['2 * -3', -6],
    ['1.5e3 + .5', 1500.5],
    ['2E-2', 0.02],
    ['  3\t*\n4 ', 12],
  ])('evaluates %s = %d', (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it('knows the constants pi and e, in any letter case', () => {
    expect(evaluateExpression('pi')).toBe(Math.PI);
    expect(evaluateExpression('2 * e')).toBe(2 * Math.E);
    expect(evaluateExpression('PI')).toBe(Math.PI);
  });

  it.each([
    ['sqrt(16)', 4],
    ['abs(-3)', 3],
    ['sin(0)', 0],
    ['cos(0)', 1],
    ['tan(0)', 0],
    ['asin(1)', Math.PI / 2],
    ['acos(1)', 0],
    ['atan(1)', Math.PI / 4],
    ['log(1000)', 3],
    ['ln(e)', 1],
    ['exp(0)', 1],
    ['round(2.5)', 3],
    ['round(3.14159, 2)', 3.14],
    ['floor(-1.5)', -2],
    ['ceil(1.2)', 2],
    ['min(3, 1, 2)', 1],
    ['max(3, 1, 2)', 3],
    ['pow(2, 10)', 1024],
    ['sqrt(max(9, 4) + 7) * 2', 8],
  ])('evaluates %s', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 12);
  });

  it.each([
    ['process', 'unexpected identifier "process" at position 0'],
    ['1 + x', 'unexpected identifier "x" at position 4'],
    ['require("fs")', 'unknown function "require"'],
    ['1 / 0', 'division by zero'],
    ['5 % (2 - 2)', 'division by zero'],
    ['1 +', 'unexpected end of expression'],
    ['(1 + 2', 'unexpected end of expression; expected ")"'],
    ['1 + 2)', 'unexpected ")" at position 5'],
    ['2 3', 'unexpected number "3" at position 2'],
    ['1; 2', 'unexpected character ";" at position 1'],
    ['* 2', 'unexpected "*" at position 0'],
    ['sqrt(1, 2)', 'sqrt() takes 1 argument, got 2'],
    ['pow(2)', 'pow() takes 2 arguments, got 1'],
    ['max()', 'max() takes at least 1 argument, got 0'],
    ['round(1.5, 0.5)', 'round() digits must be an integer from 0 to 15, got 0.5'],
    ['sqrt(-1)', 'result of sqrt(-1) is not a finite number'],
    ['log(0)', 'result of log(0) is not a finite number'],
    ['10 ^ 400', 'result of 10 ^ 400 is not a finite number'],
    ['1e400', 'number "1e400" is too large'],
    ['', 'expression is empty'],
  ])('rejects %j with %j', (expression, message) => {
    const error = errorOf(expression);
    expect(error.name).toBe('ExpressionError');
    expect(error.message).toBe(message);
  });

  it('does not resolve prototype members as functions or constants', () => {
    expect(errorOf('constructor(1)').message).toBe('unknown function "constructor"');
    expect(errorOf('toString').message).toBe('unexpected identifier "toString" at position 0');
    expect(errorOf('__proto__').message).toBe('unexpected identifier "__proto__" at position 0');
  });

  it('refuses over-long input before parsing it', () => {
    const expression = '1+'.repeat(MAX_EXPRESSION_LENGTH) + '1';
    expect(errorOf(expression).message).toMatch(/^expression is too long \(\d+ characters; the limit is 1000\)$/);
  });

  it('caps nesting depth so hostile input cannot exhaust the stack', () => {
    const parens = '('.repeat(MAX_NESTING_DEPTH + 1) + '1' + ')'.repeat(MAX_NESTING_DEPTH + 1);
    expect(errorOf(parens).message).toBe('expression is nested too deeply (more than 100 levels)');
    expect(errorOf('-'.repeat(300) + '1').message).toBe('expression is nested too deeply (more than 100 levels)');
    expect(errorOf('2^'.repeat(200) + '1').message).toBe('expression is nested too deeply (more than 100 levels)');
    const fine = '('.repeat(50) + '1' + ')'.repeat(50);
    expect(evaluateExpression(fine)).toBe(1);
  });
});
