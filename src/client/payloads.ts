import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';

/**
 * A payload read straight from history, decoded the way the client decodes its own: the codecs (e.g. encryption)
 * last to first, as they encoded first to last, then the payload converter.
 */
export async function decodePayload<T>(client: Client, payload: Payload | null | undefined): Promise<T | undefined> {
  if (!payload) return undefined;
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let payloads = [payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload<T>(payloads[0] as Payload);
}
