import type { Client } from '@temporalio/client';
import type { LoadedDataConverter, Payload } from '@temporalio/common';

/** Turns a history payload into its value: the codecs (e.g. encryption) last to first, then the converter. */
export type PayloadDecoder = (payload: Payload | null | undefined) => Promise<unknown>;

/** A decoder with a client's or worker's data converter (`client.options.loadedDataConverter`, or a file's). */
export function payloadDecoder(converter: LoadedDataConverter): PayloadDecoder {
  return async (payload) => {
    if (!payload) return undefined;
    let payloads = [payload];
    for (const codec of [...converter.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    return converter.payloadConverter.fromPayload(payloads[0] as Payload);
  };
}

/** A payload read straight from history, decoded the way the client decodes its own. */
export async function decodePayload<T>(client: Client, payload: Payload | null | undefined): Promise<T | undefined> {
  return (await payloadDecoder(client.options.loadedDataConverter)(payload)) as T | undefined;
}
