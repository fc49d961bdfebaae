import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatUsd, priceOf, priceUsage } from '../../src/shared/cost';
import { readWorkerEnv } from '../../src/worker/env';

const dir = mkdtempSync(path.join(os.tmpdir(), 'dra-prices-'));
function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

describe('the worker price table', () => {
  it('WORKER_PRICES names a JSON file of prices per million tokens; a bad one is refused in one line', () => {
    const good = file('prices.json', JSON.stringify({ 'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 } }));
    expect(readWorkerEnv({ WORKER_PRICES: good }).prices).toEqual({
      'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
    });
    expect(readWorkerEnv({}).prices).toBeUndefined();
    const bad = file('bad.json', JSON.stringify({ 'gpt-4o': { input: -1, output: 10 } }));
    expect(() => readWorkerEnv({ WORKER_PRICES: bad })).toThrow(/^Invalid WORKER_PRICES \(.*bad\.json\): .*input/);
    const notJson = file('not.json', '{');
    expect(() => readWorkerEnv({ WORKER_PRICES: notJson })).toThrow(/^cannot read WORKER_PRICES file/);
  });

  it('an exact name wins over a prefix entry, and the longest prefix over a shorter one', () => {
    const prices = {
      'gpt-4o*': { input: 2, output: 8 },
      'gpt-4o-mini*': { input: 0.15, output: 0.6 },
      'gpt-4o-mini-2024': { input: 1, output: 1 },
    };
    expect(priceOf(prices, 'gpt-4o-2024-08-06')).toEqual({ input: 2, output: 8 });
    expect(priceOf(prices, 'gpt-4o-mini-beta')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(prices, 'gpt-4o-mini-2024')).toEqual({ input: 1, output: 1 });
    expect(priceOf(prices, 'claude')).toBeNull();
  });

  it('cached prompt tokens are billed at the cached price, and amounts print without float noise', () => {
    const usage = { promptTokens: 1000, completionTokens: 100, totalTokens: 1100, cachedPromptTokens: 400 };
    expect(priceUsage(usage, { input: 2, cachedInput: 0.5, output: 8 })).toBe(0.0022);
    // No cached price: the cached tokens cost the input price.
    expect(priceUsage(usage, { input: 2, output: 8 })).toBe(0.0028);
    expect([formatUsd(null), formatUsd(0.1 + 0.2), formatUsd(0.00000012), formatUsd(1234.5)]).toEqual([
      'no price',
      '$0.3',
      '$0.00000012',
      '$1234.50',
    ]);
  });
});
