import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTextReply } from '../../src/shared/protocol';
import { readNativeReply, readTextReply } from '../../src/shared/protocol';
import { agentConfigSchema, validateAgentConfig } from '../../src/shared/agent-config';
import { argsHash } from '../../src/shared/canonical';
import { CHARS_PER_TOKEN, truncateToTokens } from '../../src/shared/observation';
import { ExpressionError, evaluateExpression } from '../../src/worker/tools/builtin/expression-parser';
import { ApprovalBook } from '../../src/workflow/record/approval-book';

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
const tags = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };
// Model output is adversarial in practice: mix the protocol's own tags into random text.
const replyText = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        'Thought:',
        'Action:',
        'Action Input:',
        'Final Answer:',
        'Observation:',
        '\n',
        '{',
        '}',
        '```json',
        '**',
      ),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('no input throws outside the documented error types', () => {
  it('the text-mode parser: any reply yields exactly one of action, final answer or malformed', () => {
    fc.assert(
      fc.property(replyText, (reply) => {
        const parsed = parseTextReply(reply, tags);
        const outcomes = [parsed.action, parsed.finalAnswer, parsed.malformed].filter((value) => value !== undefined);
        expect(outcomes).toHaveLength(1);
        expect(() => readTextReply(reply, tags, 'r', usage)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('tool-call argument parsing: any arguments text gives args or a parse error, never an exception', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), (argumentsText, name, content) => {
        const reply = readNativeReply(content, [{ id: 'c', name, argumentsText }], usage);
        for (const call of reply.type === 'tool_calls' ? reply.calls : [])
          expect(call.args !== undefined || call.parseError !== undefined).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('observation truncation: bounded, and untouched below the limit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5000 }), fc.integer({ min: 1, max: 500 }), (text, maxTokens) => {
        const { text: out, truncated } = truncateToTokens(text, maxTokens);
        if (!truncated) expect(out).toBe(text);
        else expect(out.length).toBeLessThanOrEqual(maxTokens * CHARS_PER_TOKEN + 60);
      }),
    );
  });

  it('the config schema: any value is accepted or refused with one line, never thrown', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(fc.constantFrom(...Object.keys(agentConfigSchema.shape), 'bogus'), fc.jsonValue()),
        ),
        (input) => {
          const validation = validateAgentConfig(input);
          if (!validation.ok) expect(validation.message).not.toContain('\n');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a config with every field wrong is refused with one message naming every field', () => {
    const wrong = Object.fromEntries(Object.keys(agentConfigSchema.shape).map((key) => [key, [[[]]]]));
    const validation = validateAgentConfig({ ...wrong, colour: 'blue' });
    expect(validation.ok).toBe(false);
    const message = validation.ok ? '' : validation.message;
    for (const key of Object.keys(agentConfigSchema.shape)) expect(message).toContain(key);
    expect(message).toContain('unknown field: colour');
    expect(message).not.toContain('\n');
  });

  it('decision payloads: any value is checked, never thrown', () => {
    const book = new ApprovalBook();
    book.open({ callId: 'c1-1', tool: 't', args: {}, argsHash: 'h', question: 'q', requestedAt: '', deadline: '' });
    fc.assert(
      fc.property(fc.jsonValue(), (payload) => {
        const checked = book.checkDecision(payload);
        if (!checked.ok) expect(checked.message).not.toContain('\n');
        expect(() => book.checkAnswer(payload)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('the calculator: any text evaluates or raises ExpressionError', () => {
    const expression = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 3 }),
          fc.constantFrom('(', ')', '+', '-', '*', '/', '^', '%', 'sqrt', 'pi', '1e308', '0', ',', 'max('),
        ),
        { maxLength: 40 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(expression, (text) => {
        try {
          expect(Number.isFinite(evaluateExpression(text))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('argsHash: equal for key-reordered values, defined for any JSON', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reordered = Object.fromEntries(Object.entries(value).reverse());
        expect(argsHash(reordered)).toBe(argsHash(value));
      }),
    );
  });
});
