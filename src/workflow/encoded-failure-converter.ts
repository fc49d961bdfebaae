/**
 * Loaded by path, as failure-converter.ts is: the failure converter the encrypted data converter names. Failure
 * messages and stack traces go through the payload codec instead of sitting in history as plain text.
 */
import { TolerantFailureConverter } from './failure-converter';

export const failureConverter = new TolerantFailureConverter({ encodeCommonAttributes: true });
