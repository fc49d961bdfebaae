/** The activities entry the design card names; activities live in src/worker/activities/ (workflows import types only). */
export * from '../worker/activities/index';
