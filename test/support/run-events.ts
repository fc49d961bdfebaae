import type { EventsGap } from '../../src/client/follow-options';
import type { AgentEvent } from '../../src/shared/events';

type Follows = { events(): AsyncIterable<AgentEvent | EventsGap> };

/** The events of one type a run recorded, read to its end (call it once the run has ended, or it waits for it). */
export async function eventsOfType<Type extends AgentEvent['type']>(
  run: Follows,
  type: Type,
): Promise<Array<Extract<AgentEvent, { type: Type }>>> {
  const found: Array<Extract<AgentEvent, { type: Type }>> = [];
  for await (const event of run.events())
    if (event.type === type) found.push(event as Extract<AgentEvent, { type: Type }>);
  return found;
}

/** Waits until a running run records its first event of a type. */
export async function firstEvent(run: Follows, type: AgentEvent['type']): Promise<void> {
  for await (const event of run.events()) if (event.type === type) return;
}
