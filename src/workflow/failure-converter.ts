/**
 * Loaded by path (also inside the workflow sandbox, so it imports nothing from Node). Every stock workflow bundle
 * carries it: a failure the workflow reads (another worker's activity, a child) may hold details in an encoding this
 * worker cannot read, and the SDK decodes them before any workflow code runs. Read strictly, one such detail failed
 * every workflow task of the run, forever; read here, it becomes a line of text and the run goes on.
 */
import {
  ApplicationFailure,
  DefaultFailureConverter,
  type Payload,
  type PayloadConverter,
  type ProtoFailure,
  type SerializationContext,
} from '@temporalio/common';
import { errorMessage } from '../shared/errors';

export class TolerantFailureConverter extends DefaultFailureConverter {
  /**
   * A failure (or a cause deep in its chain) whose shape the SDK refuses, such as a child-workflow or activity failure
   * without its type, as a worker in another language may write: read as a plain failure with its message, the
   * reason in its details, instead of failing every workflow task.
   */
  override failureToErrorInner(
    failure: ProtoFailure,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): Error {
    try {
      return super.failureToErrorInner(failure, payloadConverter, context);
    } catch (error) {
      return ApplicationFailure.create({
        message: failure.message ?? '',
        type: 'UnreadableFailure',
        nonRetryable: true,
        details: [`[unreadable failure: ${errorMessage(error)}]`],
      });
    }
  }

  override failureToError(
    failure: ProtoFailure,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): Error {
    return super.failureToError(failure, readingAnything(payloadConverter), context);
  }
}

/** Converters that already read anything: a failure's causes are read with the one its top level got. */
const tolerant = new WeakSet<PayloadConverter>();

/** A payload converter whose reading never throws: what it cannot read is a short text naming why. */
function readingAnything(converter: PayloadConverter): PayloadConverter {
  if (tolerant.has(converter)) return converter;
  const reading: PayloadConverter = {
    toPayload: (value, context) => converter.toPayload(value, context),
    fromPayload: <T>(payload: Payload, context?: SerializationContext): T => {
      try {
        return converter.fromPayload<T>(payload, context);
      } catch (error) {
        return `[unreadable: ${errorMessage(error)}]` as T;
      }
    },
  };
  tolerant.add(reading);
  return reading;
}

/** The failure converter of plain (unencrypted) workers: failure messages stay readable text in history. */
export const failureConverter = new TolerantFailureConverter();
