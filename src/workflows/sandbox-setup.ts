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

export {};
