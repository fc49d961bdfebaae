import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';

const { History } = temporal.api.history.v1;

/** Where the committed replay histories live. */
export const HISTORIES_DIR = path.resolve(__dirname, '../histories');

/**
 * A history as readable JSON (protobufjs's object form: longs, enums and bytes as strings), with the workflow ID it
 * ran under: replay must use it, because IDs derived from it (a subagent's) are in the history.
 */
export function historyToText(workflowId: string, history: temporal.api.history.v1.IHistory): string {
  const object = History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String });
  return `${JSON.stringify({ workflowId, history: object }, null, 1)}\n`;
}

/** Every committed history, named by its path under test/histories. */
export function loadHistories(): Array<{ name: string; workflowId: string; history: temporal.api.history.v1.History }> {
  return readdirSync(HISTORIES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const saved = JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as {
        workflowId: string;
        history: Record<string, unknown>;
      };
      return {
        name: file.replace(/\.json$/, ''),
        workflowId: saved.workflowId,
        history: History.fromObject(saved.history),
      };
    });
}
