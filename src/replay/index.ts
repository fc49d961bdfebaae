/**
 * Behaviour regression checks over recorded runs, for your own test suite (what the CLI's `replay-check` runs): each
 * recorded run is run again with today's workflow and worker code, its model calls and tool results served from the
 * recording, and what changed is reported.
 */
export { checkRecordings, loadSources, type CheckReport, type RecordingSource } from './replay-check';
export type { ReplayEnvironment } from './replay-run';
export type { Behaviour, BehaviourChange } from './behaviour';
export { chainEngineActions, countEngineActions } from './engine-actions';
export { addEngineActions, engineActionsTotal, noEngineActions, type EngineActions } from '../shared/cost';
