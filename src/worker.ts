/** The worker entry the design card names; the worker side lives in src/worker/. */
export * from './worker/index';
