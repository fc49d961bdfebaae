import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { InvalidConfigError } from '../../src/client';
import { useHarness } from '../support/harness';

const harness = useHarness();

describe('signatures and typed output', () => {
  it('a signature renders named inputs, offers the output shape, and sends an invalid answer back', async () => {
    const modelName = 'signature-run';
    harness.model.script(modelName, [
      { toolCalls: [{ name: 'final_answer', args: { answer: { answer: 'Lisbon' } } }] },
      {
        toolCalls: [
          { name: 'final_answer', args: { answer: { answer: 'Lisbon', sources: ['atlas'] }, confidence: 0.8 } },
        ],
      },
    ]);
    const run = await harness.agents.start(
      { context: 'Portugal is in Europe.', question: 'What is the capital of Portugal?' },
      { model: modelName, output: { signature: 'context, question -> answer, sources: list' } },
    );
    const result = await run.result();
    expect(result.output).toEqual({ answer: 'Lisbon', sources: ['atlas'] });
    expect(result.confidence).toBe(0.8);
    expect(JSON.parse(result.finalAnswer ?? '')).toEqual({ answer: 'Lisbon', sources: ['atlas'] });
    expect(result.trace.errorHistory).toEqual([
      expect.objectContaining({ kind: 'invalid_output', message: expect.stringContaining('sources: ') as string }),
    ]);
    const [first, second] = harness.model.requests(modelName);
    expect(first?.messages[1]?.content).toBe(
      'context: Portugal is in Europe.\nquestion: What is the capital of Portugal?',
    );
    const finalTool = first?.tools?.find((tool) => tool.function.name === 'final_answer');
    expect(JSON.stringify(finalTool?.function.parameters)).toContain('"required":["answer","sources"]');
    expect(JSON.stringify(second?.messages.at(-1))).toContain('does not match the output schema');
  });

  it('a zod output schema from the client validates a text-mode JSON answer; structured mode adds the bookkeeping', async () => {
    const modelName = 'zod-run';
    harness.model.script(modelName, [
      {
        content:
          'Thought: Population is a fact I can compute from the census figure.\nAction: calculator\nAction Input: {"expression": "545000 + 3000"}',
      },
      {
        content:
          'Thought: Lisbon has 548000 people per the calculation.\nFinal Answer: {"city": "Lisbon", "population": 548000}',
      },
    ]);
    const run = await harness.agents.start(
      'How many people live in Lisbon?',
      { model: modelName, modelSettings: { toolCalling: 'text' }, output: { mode: 'structured' } },
      { outputSchema: z.object({ city: z.string(), population: z.number().int() }) },
    );
    const result = await run.result();
    expect(result.output).toEqual({ city: 'Lisbon', population: 548000 });
    expect(result.structured).toEqual({
      answer: { city: 'Lisbon', population: 548000 },
      reasoning: 'Lisbon has 548000 people per the calculation.',
      confidence: null,
      toolUsage: { calculator: 1 },
      iterations: 2,
      summary: null,
      errorHistory: [],
    });
    expect(String(harness.model.requests(modelName)[0]?.messages[0]?.content)).toContain(
      '"population":{"type":"integer"',
    );
  });

  it('zod objects for inputs and outputs: inputs validated and rendered, the answer validated', async () => {
    const modelName = 'zod-io';
    harness.model.script(modelName, [{ toolCalls: [{ name: 'final_answer', args: { answer: { total: 42 } } }] }]);
    const inputSchema = z.object({ items: z.array(z.number()), currency: z.string() });
    await expect(harness.agents.start({ items: 'x' }, { model: modelName }, { inputSchema })).rejects.toThrow(
      /^Invalid inputs: items: .*; currency: /,
    );
    const run = await harness.agents.start(
      { items: [40, 2], currency: 'EUR' },
      { model: modelName },
      { inputSchema, outputSchema: z.object({ total: z.number() }) },
    );
    expect((await run.result()).output).toEqual({ total: 42 });
    expect(harness.model.requests(modelName)[0]?.messages[1]?.content).toBe('items: [40,2]\ncurrency: EUR');
  });

  it('bad signatures, schemas and inputs are refused before anything starts', async () => {
    await expect(harness.agents.start('q', { output: { signature: 'question answer' } })).rejects.toThrow(
      /output\.signature: a signature is "inputs -> outputs"/,
    );
    await expect(
      harness.agents.start('q', {
        output: { schema: { type: 'object', properties: { a: { type: 'no-such-type' } } } },
      }),
    ).rejects.toThrow(/output\.schema: not a usable JSON Schema/);
    await expect(
      harness.agents.start({ question: 'x' }, { output: { signature: 'context, question -> answer' } }),
    ).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(
      harness.agents.start({ question: 'x' }, { output: { signature: 'context, question -> answer' } }),
    ).rejects.toThrow('Missing signature inputs: context');
  });
});
