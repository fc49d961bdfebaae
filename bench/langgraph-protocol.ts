/** What the LangGraph contender (bench/langgraph, its own dependencies) is asked and answers; kept out of its folder
 * so the project's type check never needs LangGraph installed. */
import type { LoopJob } from './measure';

export type LangGraphJob = ({ kind: 'loop' } & LoopJob) | { kind: 'history'; baseURL: string; sizes: number[] };

export interface CheckpointRow {
  steps: number;
  /** Checkpoints the thread left (LangGraph saves one per super-step; a ReAct step is two). */
  checkpoints: number;
  /** Checkpoint, metadata and pending-write bytes of the thread. */
  bytes: number;
  bytesPerStep: number;
  seconds: number;
}
