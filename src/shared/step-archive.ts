import type { ArchivedSteps, ReActStep } from './types';
import { headOf } from './well-formed';

/**
 * Most bytes (as JSON) of the steps a run hands to the next one when it continues-as-new. Temporal refuses payloads
 * over 2 MB, and the same input also carries the config and the model's window.
 */
export const ARCHIVE_MAX_BYTES = 1024 * 1024;

/**
 * Most bytes of steps a run's result, failure details or trace query carry. A single iteration of many large
 * observations can outgrow Temporal's 2 MB limit before the run hands over, and the answer would be lost with it.
 */
export const TRACE_MAX_BYTES = 1024 * 1024;

/** Observation lengths tried in turn until the steps fit; Infinity only drops the structured data. */
const OBSERVATION_LIMITS = [Infinity, 4096, 1024, 256, 0];
/** The last resort also cuts thoughts and large arguments to this many characters. */
const LAST_RESORT_CHARS = 256;

/** Where clipped steps end up: said in the mark on each clipped observation. */
export type ClipSite = 'archive' | 'trace' | 'window' | 'seed';

export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // A surrogate pair is 4 bytes in UTF-8: 2 for each half.
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}

export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}

function cut(text: string, limit: number, site: ClipSite): string {
  // The mark leads, so it survives the CLI's own clipping of long lines.
  return text.length > limit
    ? `[clipped from ${text.length} characters in the run's ${site}] ${headOf(text, limit)}`
    : text;
}

/** The step with its structured data dropped and its observation cut to `limit` characters, marked as such. */
function clipStep(step: ReActStep, limit: number, site: ClipSite, lastResort: boolean): ReActStep {
  const observation = step.observation;
  const long = observation !== null && observation.length > limit;
  if (!long && step.observationData === undefined && !lastResort) return step;
  const rest = { ...step };
  delete rest.observationData;
  const clipped: ReActStep = {
    ...rest,
    observation: observation === null ? null : cut(observation, limit, site),
    clippedInArchive: true,
  };
  if (!lastResort) return clipped;
  clipped.thought = cut(step.thought, LAST_RESORT_CHARS, site);
  if (step.action.type === 'tool_call') {
    const args = JSON.stringify(step.action.args) ?? '';
    if (args.length > LAST_RESORT_CHARS)
      clipped.action = { ...step.action, args: { clipped: cut(args, LAST_RESORT_CHARS, site) } };
  }
  return clipped;
}

/**
 * The steps as they are when they fit `maxBytes`; otherwise structured data is dropped and observations are cut (each
 * clipped step marked) until they fit. With `lastResort`, long thoughts and arguments are cut too before giving up.
 * Undefined when nothing fits.
 */
export function fitSteps(
  steps: readonly ReActStep[],
  maxBytes: number,
  site: ClipSite,
  lastResort = false,
): ReActStep[] | undefined {
  if (jsonBytes(steps) <= maxBytes) return [...steps];
  for (const limit of OBSERVATION_LIMITS) {
    const clipped = steps.map((step) => clipStep(step, limit, site, false));
    if (jsonBytes(clipped) <= maxBytes) return clipped;
  }
  if (!lastResort) return undefined;
  const clipped = steps.map((step) => clipStep(step, 0, site, true));
  return jsonBytes(clipped) <= maxBytes ? clipped : undefined;
}

/**
 * The run's own steps as the next run's input carries them, so a client reads them from history with no worker.
 * Undefined when even empty observations do not fit `maxBytes`: the client then asks a worker for that run's steps.
 */
export function archiveSteps(steps: readonly ReActStep[], maxBytes = ARCHIVE_MAX_BYTES): ArchivedSteps | undefined {
  const fitted = fitSteps(steps, maxBytes, 'archive');
  return fitted && { steps: fitted, clippedSteps: fitted.filter((step) => step.clippedInArchive).length };
}

/**
 * A run's steps as its result, failure details and trace query carry them: whole while they fit
 * {@link TRACE_MAX_BYTES}, clipped when one iteration's observations outgrew it. `chars` is the steps' JSON length,
 * which the run keeps as it goes: when even 3 bytes a character fits, nothing needs measuring.
 */
export function traceSteps(steps: readonly ReActStep[], chars: number): ReActStep[] {
  if (chars * 3 <= TRACE_MAX_BYTES) return steps as ReActStep[];
  // Steps that fit nowhere (a thousand steps of huge arguments) are kept as they are: the server then says why.
  return fitSteps(steps, TRACE_MAX_BYTES, 'trace', true) ?? (steps as ReActStep[]);
}

/** Most bytes of steps a model call (or a summary's or critic's) input renders; the activity input has a 2 MB cap. */
export const PROMPT_STEPS_MAX_BYTES = 1024 * 1024;

/**
 * Steps as a prompt renders them: whole while they fit {@link PROMPT_STEPS_MAX_BYTES}, else clipped (and marked) so
 * the call's input fits what Temporal accepts; a model sees each clipped observation say so.
 */
export function promptSteps(steps: readonly ReActStep[]): ReActStep[] {
  return fitSteps(steps, PROMPT_STEPS_MAX_BYTES, 'window', true) ?? steps.slice(-1);
}
