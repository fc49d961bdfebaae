import { describe, it, expect } from 'vitest';
import { calculatorTool } from '../../../src/worker/tools/builtin/calculator';
import { ExpressionError } from '../../../src/worker/tools/builtin/expression-parser';
import { runTool } from './helpers';

describe('calculator tool', () => {
  it('returns the expression beside its numeric result', async () => {
    await expect(runTool(calculatorTool, { expression: '(2 + 3) * 4' })).resolves.toEqual({
      expression: '(2 + 3) * 4',
      result: 20,
    });
  });

  it('hides binary floating point noise in fractions but keeps integers exact', async () => {
    await expect(runTool(calculatorTool, { expression: '0.1 + 0.2' })).resolves.toEqual({
      expression: '0.1 + 0.2',
      result: 0.3,
    });
    await expect(runTool(calculatorTool, { expression: '2^53 + 2' })).resolves.toEqual({
      expression: '2^53 + 2',
      result: 9007199254740994,
    });
  });

  it.each([
    ['process.exit()', 'unexpected identifier "process" at position 0'],
    ['require("fs")', 'unknown function "require"'],
    ['constructor.constructor("return 1")()', 'unexpected identifier "constructor" at position 0'],
    ['1; 2', 'unexpected character ";" at position 1'],
    ['this', 'unexpected identifier "this" at position 0'],
    ['[].map', 'unexpected character "[" at position 0'],
  ])('refuses code: %s', async (expression, message) => {
    const call = runTool(calculatorTool, { expression });
    await expect(call).rejects.toBeInstanceOf(ExpressionError);
    await expect(call).rejects.toThrow(message);
  });

  it('rejects a missing or empty expression at schema validation', () => {
    expect(calculatorTool.schema.safeParse({}).success).toBe(false);
    expect(calculatorTool.schema.safeParse({ expression: '' }).success).toBe(false);
  });

  it('ships examples that its own schema accepts and that evaluate', async () => {
    for (const example of calculatorTool.examples ?? []) {
      await expect(runTool(calculatorTool, example)).resolves.toHaveProperty('result');
    }
  });
});
