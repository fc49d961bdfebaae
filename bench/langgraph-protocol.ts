/** What the LangGraph contender (bench/langgraph, its own dependencies) is asked and answers; kept out of its folder
 * so the project's type check never needs LangGraph installed. */
import type { LoopJob } from './measure';

/** LangGraph's documented checkpoint modes: `sync` saves before the next step, `async` (its default) while it runs, `exit` at the end. */
export type LangGraphDurability = 'sync' | 'async' | 'exit';

export type LangGraphJob =
  ({ kind: 'loop'; durability: LangGraphDurability } & LoopJob) | { kind: 'history'; baseURL: string; sizes: number[] };

export interface CheckpointRow {
  steps: number;
  /** Checkpoints the thread left (LangGraph saves one per super-step; a ReAct step is two). */
  checkpoints: number;
  /** Checkpoint, metadata and pending-write bytes of the thread. */
  bytes: number;
  bytesPerStep: number;
  seconds: number;
}
