import type { ArchivedSteps, ReActStep } from '../shared/types';

/**
 * Most bytes (as JSON) of the steps a run hands to the next one when it continues-as-new. Temporal refuses payloads
 * over 2 MB, and the same input also carries the config and the model's window.
 */
export const ARCHIVE_MAX_BYTES = 1024 * 1024;

/** Observation lengths tried in turn until the archive fits; Infinity only drops the structured data. */
const OBSERVATION_LIMITS = [Infinity, 4096, 1024, 256, 0];

function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // A surrogate pair is 4 bytes in UTF-8: 2 for each half.
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

function sizeOf(steps: readonly ReActStep[]): number {
  return utf8Bytes(JSON.stringify(steps));
}

/** The step with its structured data dropped and its observation cut to `limit` characters, marked as such. */
function clipStep(step: ReActStep, limit: number): ReActStep {
  const observation = step.observation;
  const long = observation !== null && observation.length > limit;
  if (!long && step.observationData === undefined) return step;
  const rest = { ...step };
  delete rest.observationData;
  return {
    ...rest,
    // The mark leads, so it survives the CLI's own clipping of long lines.
    observation: long
      ? `[clipped from ${observation.length} characters in the run's archive] ${observation.slice(0, limit)}`
      : observation,
    clippedInArchive: true,
  };
}

/**
 * The run's own steps as the next run's input carries them, so a client reads them from history with no worker.
 * Observations are clipped (and their data dropped) until they fit `maxBytes`; undefined when even that is not
 * enough, and the client then asks a worker for that run's steps instead.
 */
export function archiveSteps(steps: readonly ReActStep[], maxBytes = ARCHIVE_MAX_BYTES): ArchivedSteps | undefined {
  if (sizeOf(steps) <= maxBytes) return { steps: [...steps], clippedSteps: 0 };
  for (const limit of OBSERVATION_LIMITS) {
    const clipped = steps.map((step) => clipStep(step, limit));
    if (sizeOf(clipped) <= maxBytes) {
      return { steps: clipped, clippedSteps: clipped.filter((step) => step.clippedInArchive).length };
    }
  }
  return undefined;
}
