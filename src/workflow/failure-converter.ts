/**
 * Loaded by path (also inside the workflow sandbox, so it imports nothing from Node): failure messages and stack
 * traces go through the payload codec instead of sitting in history as plain text.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** The failure converter the encrypted data converter names. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
