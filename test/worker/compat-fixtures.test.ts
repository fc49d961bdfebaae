import { ApplicationFailure } from '@temporalio/common';
import fc from 'fast-check';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallModelInput, ModelReply } from '../../src/shared/protocol';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { createActivities } from '../../src/worker/activities';
import { createOpenAIClient } from '../../src/worker/openai-client';
import { createBuiltinTools } from '../../src/worker/tools/builtin';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { ALL_FIXTURES } from '../fixtures/compat';
import type { CompatFixture } from '../fixtures/compat/types';

/*
 * Every compatibility fixture (a reply shaped as a real server documents it) is sent by the scripted model byte for
 * byte, read by the real `openai` client over HTTP, and understood by the real model activity: the same path a run
 * takes. A fixture states what a user of that server must get: the calls, the answer, feedback, or a named error.
 */

let model: ScriptedModelServer;
let activities: ReturnType<typeof createActivities>;
const environment = () =>
  new MockActivityEnvironment({ startToCloseTimeoutMs: 60_000 }, { logger: new DefaultLogger('ERROR') });

beforeAll(async () => {
  model = await startScriptedModel();
  const registry = new ToolRegistry(createBuiltinTools({ root: process.cwd() }));
  activities = createActivities({
    openai: createOpenAIClient({ baseURL: model.baseURL }),
    defaultModel: 'x',
    registry,
  });
});
afterAll(async () => {
  await model.close();
});

async function callWith(fixture: CompatFixture): Promise<ModelReply | ApplicationFailure> {
  const name = `compat-${fixture.id}`;
  model.script(name, [{ raw: fixture.response }]);
  const input: CallModelInput = {
    messages: [
      { role: 'system', content: 'You are a careful agent.' },
      { role: 'user', content: 'What is 2+2, and how hot does ethanol boil?' },
    ],
    model: name,
    mode: fixture.mode,
    tools: ['calculator', 'search'],
    tags: { thought: 'Thought:', action: 'Action:', observation: 'Observation:' },
    label: 'compat',
    ...(fixture.response.kind === 'sse' ? { stream: { iteration: 1 } } : {}),
  };
  try {
    return await environment().run(activities.callModel, input);
  } catch (error) {
    if (error instanceof ApplicationFailure) return error;
    throw error;
  }
}

describe('compatibility fixtures', () => {
  it('cover at least six servers', () => {
    expect(new Set(ALL_FIXTURES.map((fixture) => fixture.server)).size).toBeGreaterThanOrEqual(6);
  });

  it.each(ALL_FIXTURES.map((fixture) => [`${fixture.server}: ${fixture.behaviour}`, fixture] as const))(
    '%s',
    async (_title, fixture) => {
      const outcome = await callWith(fixture);
      const { expect: wanted } = fixture;
      if (wanted.type === 'error') {
        expect(outcome, 'a classified failure').toBeInstanceOf(ApplicationFailure);
        const failure = outcome as ApplicationFailure;
        expect(failure.type).toBe(`${wanted.errorType}Error`);
        expect(failure.nonRetryable).toBe(!wanted.retryable);
        // The server's own words survive, whatever shape its error body had.
        expect(failure.message).not.toContain('(no body)');
        if (wanted.messageIncludes !== undefined) expect(failure.message).toContain(wanted.messageIncludes);
        if (wanted.contextWindow !== undefined)
          expect(failure.details?.[0]).toEqual({ contextWindow: wanted.contextWindow });
        if (wanted.retryAfterMs !== undefined) expect(failure.nextRetryDelay).toBe(wanted.retryAfterMs);
        return;
      }
      if (outcome instanceof ApplicationFailure) throw new Error(`unexpected failure: ${outcome.message}`);
      expect(outcome.type).toBe(wanted.type);
      if (wanted.type === 'tool_calls' && outcome.type === 'tool_calls') {
        expect(outcome.calls.map((call) => ({ tool: call.tool, args: call.args }))).toEqual(wanted.calls);
        for (const call of outcome.calls) expect(call.parseError).toBeUndefined();
        if (wanted.thoughtIncludes !== undefined) expect(outcome.thought).toContain(wanted.thoughtIncludes);
        if (wanted.thoughtExcludes !== undefined) expect(outcome.thought).not.toContain(wanted.thoughtExcludes);
      }
      if (wanted.type === 'final_answer' && outcome.type === 'final_answer') {
        expect(outcome.answer).toBe(wanted.answer);
        expect(outcome.answer).not.toMatch(/<\/?think>/);
        if (wanted.thoughtIncludes !== undefined) expect(outcome.thought).toContain(wanted.thoughtIncludes);
      }
      if (wanted.type === 'malformed' && outcome.type === 'malformed') {
        expect(outcome.problem).toContain(wanted.problemIncludes);
      }
      if (wanted.type === 'refusal' && outcome.type === 'refusal') {
        expect(outcome.refusal).toContain(wanted.refusalIncludes);
      }
    },
  );
});

describe('any reply', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const call = fc.record(
    { id: json, type: json, index: json, function: fc.record({ name: json, arguments: json }, { requiredKeys: [] }) },
    { requiredKeys: [] },
  );
  const message = fc.record(
    {
      content: fc.oneof(json, fc.string()),
      reasoning_content: json,
      reasoning: json,
      refusal: json,
      tool_calls: fc.array(call, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    json,
    fc.record(
      {
        id: json,
        choices: fc.array(fc.record({ message, finish_reason: json }, { requiredKeys: [] }), { maxLength: 2 }),
        usage: json,
      },
      { requiredKeys: ['choices'] },
    ),
  );
  const response = fc.oneof(
    body.map((value) => ({ kind: 'json' as const, body: value })),
    fc.string().map((text) => ({ kind: 'text' as const, contentType: 'text/html', body: text })),
    fc
      .array(
        fc.oneof(
          body,
          fc.record({
            choices: fc.array(fc.record({ delta: message, finish_reason: json }, { requiredKeys: [] }), {
              maxLength: 1,
            }),
          }),
        ),
        { maxLength: 4 },
      )
      .map((events) => ({
        kind: 'sse' as const,
        events: [...events, '[DONE]'],
      })),
  );

  it('gives the loop a reply or a classified failure, never an unclassified error', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(response, fc.constantFrom<'native' | 'text'>('native', 'text'), async (raw, mode) => {
        runs += 1;
        const outcome = await callWith({
          id: `property-${runs}`,
          server: 'generated',
          behaviour: 'generated',
          source: 'fast-check',
          mode,
          response: raw,
          expect: { type: 'malformed', problemIncludes: '' },
        });
        if (outcome instanceof ApplicationFailure) expect(outcome.type).toMatch(/^Model\w+Error$/);
        else expect(['tool_calls', 'final_answer', 'clarification', 'malformed', 'refusal']).toContain(outcome.type);
      }),
      { numRuns: 200 },
    );
  });
});
