import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import type { HistoryInput } from './history-input';

/*
 * History files come in two JSON forms. The project's own (test/histories) is protobufjs's object form wrapped as
 * `{ workflowId, history }`. `temporal workflow show --output json` and the Temporal UI's download write proto3 JSON
 * (`{ events: [...] }`), with enums as `EVENT_TYPE_…`, as `WorkflowExecutionStarted` (older UI) or as numbers, and
 * the CLI by default with "shorthand" payloads: a JSON payload written as its value, a payload list as an array.
 * Both forms are walked with the history's own protobuf schema and put in the object form: shorthand payloads, enum
 * spellings, snake_case names and proto3 JSON's timestamps and durations. The SDK's `historyFromJSON` is not used:
 * it reads neither shorthand nor numeric enums, and it fails ("type must be a Type") wherever npm installs
 * @temporalio/common and @temporalio/proto with separate copies of protobufjs, as it does here.
 */

/** The bits of protobufjs's reflection this reader walks (the proto package's classes are reflection types). */
interface ReflectEnum {
  values: Record<string, number>;
  valuesById: Record<number, string>;
}
interface ReflectField {
  map: boolean;
  repeated: boolean;
  resolve(): ReflectField;
  resolvedType: ReflectType | ReflectEnum | null;
}
interface ReflectType {
  fullName: string;
  fields: Record<string, ReflectField>;
}

const HISTORY_TYPE = temporal.api.history.v1.History as unknown as ReflectType;
const PAYLOAD = '.temporal.api.common.v1.Payload';
const PAYLOADS = '.temporal.api.common.v1.Payloads';
const TIMESTAMP = '.google.protobuf.Timestamp';
const DURATION = '.google.protobuf.Duration';
const PAYLOAD_KEYS = new Set(['metadata', 'data', 'externalPayloads']);
const SHORTHAND_MESSAGE_TYPE = '_protoMessageType';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const camelCase = (name: string): string => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** A payload in proto3 JSON (base64 metadata and data), as opposed to the CLI's shorthand for one. */
function isFullPayload(value: unknown): boolean {
  if (!isRecord(value) || !isRecord(value.metadata)) return false;
  if (!Object.keys(value).every((key) => PAYLOAD_KEYS.has(key))) return false;
  if (!Object.values(value.metadata).every((entry) => typeof entry === 'string')) return false;
  return typeof value.data === 'string' || value.metadata.encoding === base64('binary/null');
}

/** A shorthand payload as the payload it stands for (the reverse of the Go API's `toJSONShorthand`). */
function fullPayload(value: unknown): unknown {
  if (isFullPayload(value)) return value;
  if (value === null) return { metadata: { encoding: base64('binary/null') } };
  if (isRecord(value) && typeof value[SHORTHAND_MESSAGE_TYPE] === 'string') {
    const { [SHORTHAND_MESSAGE_TYPE]: messageType, ...message } = value;
    return {
      metadata: { encoding: base64('json/protobuf'), messageType: base64(messageType) },
      data: base64(JSON.stringify(message)),
    };
  }
  return { metadata: { encoding: base64('json/plain') }, data: base64(JSON.stringify(value)) };
}

/** An enum value by name: numbers and `PascalCase` names become `PREFIX_CONSTANT_CASE` names. */
function enumName(value: unknown, type: ReflectEnum): unknown {
  if (typeof value === 'number') return type.valuesById[value] ?? value;
  if (typeof value !== 'string' || value in type.values) return value;
  const prefix = (type.valuesById[0] ?? '').replace(/UNSPECIFIED$/, '');
  const candidate = `${prefix}${value.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
  return candidate in type.values ? candidate : value;
}

/** Nanoseconds from a fraction's digits ("5" is 500,000,000). */
const nanosOf = (digits: string | undefined): number => Number((digits ?? '').padEnd(9, '0').slice(0, 9));

/** proto3 JSON's RFC 3339 time ("2026-01-02T03:04:05.123456789Z") as `{ seconds, nanos }`, to the nanosecond. */
function timestamp(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const parts = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i.exec(value);
  const millis = parts ? Date.parse(`${parts[1]}${parts[3]}`) : NaN;
  return Number.isNaN(millis) ? value : { seconds: Math.floor(millis / 1000), nanos: nanosOf(parts?.[2]) };
}

/** proto3 JSON's duration ("90s", "0.5s", "-1.5s") as `{ seconds, nanos }`. */
function duration(value: unknown): unknown {
  const parts = typeof value === 'string' ? /^(-?)(\d+)(?:\.(\d+))?s$/.exec(value) : null;
  if (!parts) return value;
  const sign = parts[1] === '-' ? -1 : 1;
  return { seconds: sign * Number(parts[2]), nanos: sign * nanosOf(parts[3]) };
}

function normaliseValue(value: unknown, type: ReflectType | ReflectEnum): unknown {
  if ('values' in type) return enumName(value, type);
  if (type.fullName === TIMESTAMP) return timestamp(value);
  if (type.fullName === DURATION) return duration(value);
  if (type.fullName === PAYLOAD) return fullPayload(value);
  if (type.fullName === PAYLOADS) {
    if (Array.isArray(value)) return { payloads: value.map(fullPayload) };
    if (isRecord(value) && Array.isArray(value.payloads))
      return { ...value, payloads: value.payloads.map(fullPayload) };
    return value;
  }
  return normaliseMessage(value, type);
}

function normaliseMessage(value: unknown, type: ReflectType): unknown {
  if (!isRecord(value)) return value;
  const normalised: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const name = camelCase(key);
    // Own fields only: a key named `toString` must not find Object.prototype's.
    const field = Object.hasOwn(type.fields, name) ? type.fields[name] : undefined;
    const resolved = field?.resolve().resolvedType;
    if (!field || !resolved) {
      // A scalar, which the object form reads as proto3 JSON writes it (int64 as text, bytes as base64), or a field
      // this SDK does not know (a newer server's), which it ignores.
      normalised[field ? name : key] = raw;
      continue;
    }
    const one = (item: unknown) => normaliseValue(item, resolved);
    normalised[name] =
      field.map && isRecord(raw)
        ? Object.fromEntries(Object.entries(raw).map(([entry, item]) => [entry, one(item)]))
        : field.repeated && Array.isArray(raw)
          ? raw.map(one)
          : one(raw);
  }
  return normalised;
}

/**
 * A parsed history document as a run's history: the project's `{ workflowId, history }`, or a proto3-JSON
 * `{ events: [...] }` as the Temporal CLI and UI write it. `source` names it in errors.
 */
export function readHistoryJson(document: unknown, source = 'the document'): HistoryInput {
  const wrapped = isRecord(document) && isRecord(document.history) ? document.history : undefined;
  const raw = wrapped ?? (isRecord(document) ? document : undefined);
  if (!raw || !Array.isArray(raw.events)) throw new Error(`${source} is not a workflow history (no "events")`);
  const history = temporal.api.history.v1.History.fromObject(normaliseMessage(raw, HISTORY_TYPE) as object);
  const named = isRecord(document) && typeof document.workflowId === 'string' ? document.workflowId : undefined;
  // Servers since 1.21 record the workflow ID in the start event; the CLI's and UI's files hold nothing else.
  const workflowId = named ?? (history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || undefined);
  return { ...(workflowId ? { workflowId } : {}), history };
}

/**
 * Loads a history file: the project's `{ workflowId, history }` (test/histories), or what
 * `temporal workflow show --output json` (or `jsonl`, one event a line) and the Temporal UI's download write.
 */
export function loadHistoryFile(file: string): HistoryInput {
  const text = readFileSync(file, 'utf8');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length < 2) throw new Error(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
    document = { events: lines.map((line) => JSON.parse(line) as unknown) };
  }
  return readHistoryJson(document, file);
}
