/** The client entry the design card names; the client side lives in src/client/. */
export * from './client/index';
