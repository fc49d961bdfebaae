import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedResponder, ScriptedTurn } from '../../src/testing';
import { useHarness } from '../support/harness';

// Issue 35, item 1: real models paraphrase a search or alternate between two calls when they are stuck. The loop stops
// both as `stalled` after as many wasted iterations as an identical repeat, and let calls that only look alike run.

const root = mkdtempSync(path.join(os.tmpdir(), 'dra-stalls-'));
for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(path.join(root, name), `notes of ${name}\n`);
writeFileSync(path.join(root, 'apple.md'), '# Apple\nThe apple price today is 227.50 USD; revenue grew in 2023.\n');
const harness = useHarness({ toolsRoot: root });

const thought = 'I still need this to answer the question, so I call the tool again.';
const search = (query: string) => ({ thought, toolCalls: [{ name: 'search', args: { query } }] });
const calc = (expression: string) => ({ thought, toolCalls: [{ name: 'calculator', args: { expression } }] });
const read = (file: string) => ({ thought, toolCalls: [{ name: 'read_file', args: { path: file } }] });
const price = (symbol: string) => ({ thought, toolCalls: [{ name: 'stock_price', args: { symbol } }] });
/**
 * A stuck model: it plays `turns` in order (going round them again) for as long as it is offered tools, and gives
 * `answer` once a forced final answer offers none, whenever that comes.
 */
const stuck =
  (turns: readonly ScriptedTurn[], answer: string): ScriptedResponder =>
  (request, index) =>
    request.tools === undefined ? { answer } : turns[index % turns.length]!;
const toolSteps = (steps: readonly { action: { type: string } }[]) =>
  steps.filter((step) => step.action.type === 'tool_call').length;

describe('stalls beyond identical repeats', () => {
  it('paraphrased searches stop as stalled within limits.stallThreshold iterations', async () => {
    const queries = [
      'apple price',
      'price of apple',
      'Apple stock price',
      'what is the apple price',
      'apple prices',
      'the price of Apple stock',
      'Apple price?',
      'apple stock price please',
    ];
    const run = await harness.start(
      stuck(queries.map(search), 'The search kept returning the same page: 227.50 USD.'),
      'What is the apple price?',
      { forceFinalAnswer: true, limits: { stallThreshold: 3, maxIterations: queries.length } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('stalled');
    expect(result.trace.totalIterations).toBe(3);
    expect(toolSteps(result.trace.steps)).toBe(3);
    expect(result.trace.terminationDetail).toBe(
      'near-repeat: nearly the same calls in 3 iterations in a row: search {"query":"apple price"} / ' +
        'search {"query":"price of apple"} / search {"query":"Apple stock price"}',
    );
    expect(result.finalAnswer).toBe('The search kept returning the same page: 227.50 USD.');
  });

  it('an A, B, A, B alternation stops as stalled', async () => {
    const run = await harness.start(
      stuck([search('apple price'), price('AAPL')], 'I went round in circles: AAPL is 227.5 USD.'),
      'What is the apple price?',
      { forceFinalAnswer: true, limits: { stallThreshold: 3, maxIterations: 8 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('stalled');
    expect(result.trace.totalIterations).toBe(4);
    expect(result.trace.terminationDetail).toBe(
      'cycle: 4 iterations went round the same 2 replies: search {"query":"apple price"} → stock_price {"symbol":"AAPL"}',
    );
    expect(result.finalAnswer).toBe('I went round in circles: AAPL is 227.5 USD.');
  });

  it('the same search about one company after another is work, not a stall (issue 50, F1)', async () => {
    const companies = ['Apple Inc', 'Microsoft', 'Alphabet', 'Amazon', 'Meta Platforms'];
    const replies = companies.map((company) => search(`latest quarterly revenue report for ${company}`));
    const run = await harness.start(
      [...replies, { answer: 'All five reports are in.' }],
      'Compare the latest quarterly revenue of five big tech companies.',
      // The default stall threshold, as the audit ran it.
      { limits: { maxIterations: 10 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(toolSteps(result.trace.steps)).toBe(companies.length);
    expect(result.finalAnswer).toBe('All five reports are in.');
  });

  it('real progress with similar-looking but different calls runs to its answer', async () => {
    const replies = [
      calc('227.5 * 2'),
      calc('227.5 * 3'),
      calc('227.5 * 4'),
      search('apple revenue 2022'),
      search('apple revenue 2023'),
      search('apple revenue 2024'),
      read('a.txt'),
      calc('1 + 1'),
      read('b.txt'),
      calc('2 + 2'),
      read('c.txt'),
      search('apple price'),
      search('banana price'),
      search('cherry price'),
    ];
    const run = await harness.start(
      [...replies, { answer: 'Every figure is in: 455, 682.5 and 910.' }],
      'Work through the figures.',
      { limits: { stallThreshold: 3, maxIterations: 20 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.trace.totalIterations).toBe(replies.length + 1);
    expect(toolSteps(result.trace.steps)).toBe(replies.length);
    expect(result.finalAnswer).toBe('Every figure is in: 455, 682.5 and 910.');
  });
});
