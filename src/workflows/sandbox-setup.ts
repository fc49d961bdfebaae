/*
 * Preloaded once per workflow V8 context, before the SDK freezes the context's globals (`preloadModules`), so it can
 * still change them; never imported by a workflow.
 *
 * The SDK's promise hook records a stack trace for every promise a workflow creates, for the stack-trace query; at
 * default depth that was 35-45% of the workflow thread's CPU in this loop (sdk-typescript#1587). Without frames the
 * hook is cheap. What is lost: errors thrown in workflow code carry no stack, and the Temporal UI's stack trace of a
 * running agent is empty. A worker created with `workflowStackTraces: true` bundles without this module.
 */
Error.stackTraceLimit = 0;

/*
 * The same hook finds the running workflow's globals three times per promise (created, settled) by compiling a tiny
 * function with `promise.constructor.constructor`, the context's Function constructor: about 9 µs per promise, some
 * 30 promises per step. The context's `Promise.constructor` hands back one compiled function per source instead, for
 * the sources the hook uses; any other source is compiled as before. Promise species lookups read
 * `promise.constructor` (still `Promise`), never `Promise.constructor`.
 */
const compile = Function;
const hookLookups = new Map<string, () => unknown>();
for (const source of ['return globalThis.__TEMPORAL_ACTIVATOR__', 'return globalThis.Error'])
  hookLookups.set(source, compile(source) as () => unknown);
Object.defineProperty(Promise, 'constructor', {
  value: function constructor(...args: string[]) {
    return (args.length === 1 && hookLookups.get(args[0]!)) || compile(...args);
  },
});

export {};
