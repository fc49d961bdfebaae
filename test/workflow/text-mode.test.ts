import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness';

const harness = useHarness();

describe('text mode (models without tool calling)', () => {
  it('parses Thought/Action/Action Input, feeds back unparseable replies, and reads the Final Answer', async () => {
    const run = await harness.start(
      [
        { content: 'I think I should just say something.' },
        {
          content:
            'Thought: The total needs exact arithmetic, so I use the calculator.\nAction: calculator\nAction Input: {"expression": "19*3"}\nObservation: 1000',
        },
        { content: 'Thought: The calculator says 57, which answers the question.\nFinal Answer: 57' },
      ],
      'What is 19 times 3?',
      { modelSettings: { toolCalling: 'text' } },
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('57');
    expect(result.trace.errorHistory[0]).toMatchObject({ kind: 'malformed_output' });
    const step = result.trace.steps[0];
    expect(step?.action).toMatchObject({ type: 'tool_call', tool: 'calculator', args: { expression: '19*3' } });
    expect(step?.observationData).toMatchObject({ result: 57 }); // the invented "Observation: 1000" was ignored

    const requests = harness.model.requests(run.modelName);
    expect(requests[0]?.tools).toBeUndefined();
    expect(String(requests[0]?.messages[0]?.content)).toContain('Action Input:');
    expect(String(requests[0]?.messages[0]?.content)).toContain('- calculator:');
    expect(requests[0]?.stop).toEqual(['\nObservation:']);
    expect(JSON.stringify(requests[1]?.messages.at(-1))).toContain('no \\"Action:\\"');
    expect(String(requests[2]?.messages.at(-1)?.content)).toMatch(/^Observation: [\s\S]*57/);
  });

  it('honours custom tags', async () => {
    const run = await harness.start(
      [
        {
          content: 'Reasoning: Exact arithmetic is needed here.\nTool: calculator\nTool Input: {"expression": "2^10"}',
        },
        { content: 'Reasoning: 1024 it is.\nFinal Answer: 1024' },
      ],
      'q',
      {
        modelSettings: { toolCalling: 'text', thoughtTag: 'Reasoning:', actionTag: 'Tool:', observationTag: 'Result:' },
      },
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('1024');
    expect(result.trace.steps[0]?.thought).toBe('Exact arithmetic is needed here.');
    expect(String(harness.model.requests(run.modelName)[1]?.messages.at(-1)?.content)).toMatch(/^Result: /);
  });
});
