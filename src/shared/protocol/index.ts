/**
 * The protocol between the loop and a model, in one place: the messages and the activity's input and reply
 * (model-io), the built-in actions (names, argument schemas, parsers), the text format (instructions, parser AND
 * renderer) and the reading of a reply. Pure and sandbox-safe: the worker and the workflow both use it.
 */
export * from './builtin-actions';
export * from './loose-json';
export * from './model-io';
export * from './prompt-delta';
export * from './reasoning';
export * from './reply';
export * from './text-format';
