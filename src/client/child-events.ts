import type { Client } from '@temporalio/client';
import type { AgentEvent } from '../shared/events';
import { followEvents, type EventsGap, type EventsOptions } from './events';

/** A subagent's event, in its parent's stream: `child` is the subagent's workflow ID, `seq` its own numbering. */
export type ChildEvent = (AgentEvent | EventsGap) & { child: string };

type Item = { value: AgentEvent | EventsGap | ChildEvent } | { done: true } | { error: unknown };

/**
 * The parent's events, with the events of each subagent it starts interleaved as they happen, tagged with the
 * child's workflow ID. A child is followed from its first event once the parent's `subagent_started` for it comes by
 * (so on resume, only children started after the cursor); its events keep their own seq, and the cursor to resume
 * with stays the parent's last `seq` among the events without `child`. Ends with the parent's stream, after its
 * children's streams.
 */
export async function* followWithChildren(
  client: Client,
  workflowId: string,
  options: EventsOptions = {},
): AsyncGenerator<AgentEvent | EventsGap | ChildEvent, void, undefined> {
  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  let running = 0;
  const push = (item: Item) => {
    queue.push(item);
    wake?.();
  };
  const pump = (stream: AsyncIterable<AgentEvent | EventsGap>, child?: string) => {
    running += 1;
    void (async () => {
      try {
        for await (const event of stream) {
          push({ value: child ? { ...event, child } : event });
          if (!child && event.type === 'subagent_started') {
            pump(followEvents(client, event.childWorkflowId, { signal: options.signal }), event.childWorkflowId);
          }
        }
        push({ done: true });
      } catch (error) {
        push({ error });
      }
    })();
  };
  pump(followEvents(client, workflowId, options));
  while (running > 0) {
    if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    const item = queue.shift()!;
    if ('error' in item) throw item.error;
    if ('done' in item) running -= 1;
    else yield item.value;
  }
}
