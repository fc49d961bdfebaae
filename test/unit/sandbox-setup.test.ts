import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SANDBOX_SETUP_PATH } from '../../src/worker/workflow-bundle';

// The stock bundle's sandbox set-up runs in each workflow V8 context before the SDK freezes it. The SDK's promise hook
// finds the running workflow through `promise.constructor.constructor(source)()`; the set-up answers the hook's
// sources with one compiled function each. What must hold: the hook still gets the workflow running now, and
// nothing else about promises or compiling changes.

/** A fresh V8 context with the set-up evaluated in it, as the SDK's reusable context has it. */
function contextWithSetUp(): vm.Context {
  const source = readFileSync(`${SANDBOX_SETUP_PATH.replace(/dist/, 'src')}.ts`, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
  const context = vm.createContext({ exports: {} });
  vm.runInContext(outputText, context);
  return context;
}

describe('sandbox set-up', () => {
  it('the promise hook’s lookup reads the globals of the workflow running when it is called', () => {
    const context = contextWithSetUp();
    const found = vm.runInContext(
      `const lookup = () => (async () => {})().constructor.constructor('return globalThis.__TEMPORAL_ACTIVATOR__')();
       const seen = [];
       globalThis.__TEMPORAL_ACTIVATOR__ = 'workflow A'; seen.push(lookup());
       globalThis.__TEMPORAL_ACTIVATOR__ = 'workflow B'; seen.push(lookup());
       seen.push(Promise.constructor('return globalThis.Error')() === Error);
       seen.push(Promise.constructor('return globalThis.Error') === Promise.constructor('return globalThis.Error'));
       seen;`,
      context,
    ) as unknown[];
    expect([...found]).toEqual(['workflow A', 'workflow B', true, true]);
  });

  it('other sources compile as with Function, and promises keep their constructor and species', async () => {
    const context = contextWithSetUp();
    const result = vm.runInContext(
      `(async () => {
         const add = Promise.constructor('a', 'b', 'return a + b');
         const viaNew = new Promise.constructor('return 7');
         const chained = await Promise.resolve(1).then((n) => n + 1);
         const made = (async () => 1)();
         return [add(2, 3), viaNew(), chained, made.constructor === Promise, made.then(() => 0) instanceof Promise];
       })()`,
      context,
    ) as Promise<unknown[]>;
    expect([...(await result)]).toEqual([5, 7, 2, true, true]);
    expect(vm.runInContext('Error.stackTraceLimit', context)).toBe(0);
  });
});
