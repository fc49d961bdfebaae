import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { defaultDataConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { loadHistoryFile, payloadDecoder, readRecording } from '../../src/replay/recording';
import { HISTORIES_DIR } from '../support/histories';

const decode = payloadDecoder(defaultDataConverter);
/**
 * proto3 JSON as the CLI writes it, from the protobufjs copy @temporalio/proto uses (the SDK's `historyToJSON` uses
 * @temporalio/common's, which npm installs separately here and which then refuses proto's types).
 */
const { toJson } = createRequire(createRequire(__filename).resolve('@temporalio/proto'))(
  'protobufjs/ext/protojson',
) as {
  toJson: (type: unknown, message: unknown) => unknown;
};

describe('history files written by the Temporal CLI and UI', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-recording-'));
  const original = loadHistoryFile(path.join(HISTORIES_DIR, 'success.json'));
  const protoJson = toJson(
    temporal.api.history.v1.History,
    temporal.api.history.v1.History.fromObject(original.history),
  ) as {
    events: Array<Record<string, unknown>>;
  };
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  /** The CLI's default: a JSON payload written as its value, a list of them as an array. */
  const shorthand = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(shorthand);
    if (typeof value !== 'object' || value === null) return value;
    const object = value as Record<string, unknown>;
    const json = (payload: unknown) => {
      const { metadata, data } = (payload ?? {}) as { metadata?: Record<string, string>; data?: string };
      return (
        metadata?.encoding === Buffer.from('json/plain').toString('base64') &&
        Object.keys(metadata).length === 1 &&
        data !== undefined
      );
    };
    if (Array.isArray(object.payloads) && object.payloads.every(json))
      return object.payloads.map(
        (payload) => JSON.parse(Buffer.from((payload as { data: string }).data, 'base64').toString()) as unknown,
      );
    if (json(object)) return JSON.parse(Buffer.from(object.data as string, 'base64').toString()) as unknown;
    return Object.fromEntries(Object.entries(object).map(([key, entry]) => [key, shorthand(entry)]));
  };
  const pascal = (type: string) =>
    type
      .replace(/^EVENT_TYPE_/, '')
      .toLowerCase()
      .replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

  it.each([
    ['proto JSON', JSON.stringify(protoJson)],
    ['shorthand payloads', JSON.stringify(shorthand(protoJson))],
    [
      'numeric event types',
      JSON.stringify({
        events: protoJson.events.map((entry) => ({
          ...entry,
          eventType: temporal.api.enums.v1.EventType[entry.eventType as keyof typeof temporal.api.enums.v1.EventType],
        })),
      }),
    ],
    [
      'PascalCase event types',
      JSON.stringify({
        events: protoJson.events.map((entry) => ({ ...entry, eventType: pascal(entry.eventType as string) })),
      }),
    ],
    ['one event a line (jsonl)', protoJson.events.map((entry) => JSON.stringify(shorthand(entry))).join('\n')],
  ])('reads %s into the same recording', async (name, text) => {
    const loaded = loadHistoryFile(write(`${name.replace(/\W+/g, '-')}.json`, text));
    expect(loaded.workflowId).toBe('history-success'); // from the start event: the CLI's file names no workflow
    const [recorded, fromFile] = await Promise.all([
      readRecording([original], decode),
      readRecording([loaded], decode),
    ]);
    expect(fromFile).toEqual(recorded);
  });

  it('refuses a file that is not a history', () => {
    expect(() => loadHistoryFile(write('not-history.json', '{"hello":1}'))).toThrow('is not a workflow history');
  });
});
