/**
 * Writes the wire contract into docs/contract/: one JSON Schema file per message the workflow takes or answers
 * (its input and result, each update, signal and query of src/shared/messages.ts), plus index.json. Every schema
 * is generated from the definition the code itself uses:
 *
 * - the run config from its zod schemas (`z.toJSONSchema`), in both shapes a start may send;
 * - the decision payloads from the payload-check combinators that check them in the workflow (their `schema`);
 * - everything else (query answers, update results, the workflow result) from the TypeScript types named in
 *   messages.ts, by ts-json-schema-generator.
 *
 * The list of messages is read from messages.ts too (each `defineQuery/defineUpdate/defineSignal` and its type
 * arguments), so a message added there is published, or the contract test says why not. test/unit/contract.test.ts
 * fails when the checked-in files differ from what this writes.
 *
 *   npm run docs:contract
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createGenerator, type Schema } from 'ts-json-schema-generator';
import ts from 'typescript';
import { z } from 'zod';
import { agentConfigSchema } from '../src/shared/agent-config';
import { checkAnswerPayload, checkDecisionPayload } from '../src/shared/approvals';
import { checkBudgetPayload } from '../src/shared/budget';
import { AGENT_WORKFLOW_TYPE, DEFAULT_TASK_QUEUE } from '../src/shared/messages';
import type { PayloadSchema } from '../src/shared/payload-check';

/**
 * The contract's version. Additive changes keep it (a new optional field in a payload, a new field in an answer or
 * result, a new message, a new enum value in an answer); breaking ones bump it (see docs/contract/README.md).
 */
export const CONTRACT_VERSION = 1;
/** Where the files go, relative to the repository root. */
export const CONTRACT_DIR = 'docs/contract';

/** Messages of messages.ts that are not for other clients: the model activity's own stream of text. */
export const INTERNAL_MESSAGES: readonly string[] = ['modelDelta'];

/** Payloads the workflow checks with the payload-check combinators: their schema is the check's own. */
const CHECKED_PAYLOADS: Readonly<Record<string, PayloadSchema>> = {
  Decision: checkDecisionPayload.schema,
  Answer: checkAnswerPayload.schema,
  BudgetDecision: checkBudgetPayload.schema,
};

type Kind = 'query' | 'update' | 'signal';
type JsonObject = Record<string, unknown>;

/** One `defineX<...>('name')` of messages.ts: its kind, name, doc comment and type arguments as written. */
export interface DeclaredMessage {
  kind: Kind;
  name: string;
  description: string;
  /** The answer or result type (queries, updates). */
  result: string | undefined;
  /** The argument types, one per argument. */
  args: string[];
}

const root = path.resolve(__dirname, '..');
const MESSAGES_FILE = 'src/shared/messages.ts';

/** Reads the messages messages.ts defines, in the order it defines them. */
export function declaredMessages(): DeclaredMessage[] {
  const file = path.join(root, MESSAGES_FILE);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: DeclaredMessage[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const call = declaration.initializer;
      if (!call || !ts.isCallExpression(call) || !ts.isIdentifier(call.expression)) continue;
      const kinds: Record<string, Kind> = { defineQuery: 'query', defineUpdate: 'update', defineSignal: 'signal' };
      const kind = kinds[call.expression.text];
      const [name] = call.arguments;
      if (!kind || !name || !ts.isStringLiteral(name)) continue;
      const types = [...(call.typeArguments ?? [])];
      // defineSignal<Args>; defineQuery / defineUpdate<Result, Args>.
      const argsNode = kind === 'signal' ? types[0] : types[1];
      const args = argsNode && ts.isTupleTypeNode(argsNode) ? argsNode.elements.map((e) => e.getText(source)) : [];
      const docs = ts.getJSDocCommentsAndTags(declaration.parent.parent);
      const description = docs
        .map((doc) => (typeof doc.comment === 'string' ? doc.comment : (ts.getTextOfJSDocComment(doc.comment) ?? '')))
        .join('\n')
        .replace(/\s*\n\s*/g, ' ')
        .trim();
      found.push({
        kind,
        name: name.text,
        description,
        result: kind === 'signal' ? undefined : types[0]?.getText(source),
        args,
      });
    }
  }
  return found;
}

/** A copy of an object without some of its keys. */
function withoutKeys(object: object, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
}

/** Builds schemas of the TypeScript types messages.ts names, sharing one program. */
class TypeSchemas {
  private readonly generator = createGenerator({
    path: path.join(root, MESSAGES_FILE),
    tsconfig: path.join(root, 'tsconfig.json'),
    // tsc checks the code; the generator only reads the types.
    skipTypeCheck: true,
    expose: 'export',
    topRef: false,
    jsDoc: 'extended',
    additionalProperties: false,
    sortProps: true,
  });

  /** The schema of a type as written in a type argument (`X`, `X | null`, `string`), its definitions collected. */
  of(written: string, definitions: JsonObject): JsonObject {
    const parts = written.split('|').map((part) => part.trim());
    if (parts.length > 1) return { anyOf: parts.map((part) => this.of(part, definitions)) };
    if (written === 'null') return { type: 'null' };
    if (written === 'string' || written === 'number' || written === 'boolean') return { type: written };
    const checked = CHECKED_PAYLOADS[written];
    if (checked) return { ...checked };
    const schema: Schema = this.generator.createSchema(written);
    Object.assign(definitions, schema.definitions ?? {});
    return withoutKeys(schema, ['definitions', '$schema']);
  }
}

/** The config a start may send: the one shape people write, which a resolved config also has. */
function configSchema(): JsonObject {
  const options = { io: 'input', target: 'draft-7', unrepresentable: 'any' } as const;
  return {
    ...withoutKeys(z.toJSONSchema(agentConfigSchema, options), ['$schema']),
    description:
      'The run config (AgentConfig: limits, approvals, ...). AgentClient, continue-as-new and subagents send it resolved (every default applied), which is the same shape. The worker applies the defaults and checks it; a config it refuses fails the run at its start with the problems listed.',
  };
}

/** The workflow's input: the query and config are for any client; the rest only the worker and AgentClient write. */
function workflowInput(): JsonObject {
  const internal = (what: string): JsonObject => ({
    type: 'object',
    description: `${what} Written by the worker or AgentClient only; its shape is not part of the contract: do not send it.`,
  });
  return {
    type: 'object',
    properties: {
      query: { type: 'string', description: "The user's task or question." },
      config: configSchema(),
      carried: internal('Set by continue-as-new: the state the next run of the chain takes over.'),
      previousSteps: internal("Set by continue-as-new: the previous run's steps, for readers of history."),
      seed: internal("Set for a fork or continuation: the parent run's steps to start from."),
    },
    required: ['query'],
    additionalProperties: false,
  };
}

/** One published file: a message, its input and result under `definitions`, and the types they use. */
export interface ContractFile {
  file: string;
  schema: JsonObject;
}

/** Orders the definitions by name, so the files do not change when a declaration moves. */
function sorted(definitions: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.keys(definitions)
      .sort()
      .map((key) => [key, definitions[key]]),
  );
}

function document(
  name: string,
  kinds: string[],
  description: string,
  input: JsonObject | undefined,
  result: JsonObject | undefined,
  types: JsonObject,
): JsonObject {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `${name}.json`,
    title: name,
    description,
    contractVersion: CONTRACT_VERSION,
    message: { name, kinds },
    definitions: {
      ...(input ? { input } : {}),
      ...(result ? { result } : {}),
      ...sorted(types),
    },
  };
}

/** Every file of the contract, as `npm run docs:contract` writes them. */
export function buildContract(): ContractFile[] {
  const schemas = new TypeSchemas();
  const files: ContractFile[] = [];
  {
    const types: JsonObject = {};
    const result = schemas.of('ReActResult', types);
    files.push({
      file: `${AGENT_WORKFLOW_TYPE}.json`,
      schema: document(
        AGENT_WORKFLOW_TYPE,
        ['workflow'],
        `The agent workflow: start it on task queue "${DEFAULT_TASK_QUEUE}" (unless the worker was given another) with one argument, the input; it returns the result.`,
        workflowInput(),
        result,
        types,
      ),
    });
  }
  // A message defined as both an update and a signal (decide, answer, decideBudget) takes one payload: one file.
  const byName = new Map<string, DeclaredMessage[]>();
  for (const message of declaredMessages()) {
    if (INTERNAL_MESSAGES.includes(message.name)) continue;
    byName.set(message.name, [...(byName.get(message.name) ?? []), message]);
  }
  for (const [name, declared] of byName) {
    const types: JsonObject = {};
    const first = declared[0]!;
    if (first.args.length > 1) throw new Error(`${name} takes ${first.args.length} arguments: the contract has one`);
    const input = first.args[0] === undefined ? undefined : schemas.of(first.args[0], types);
    const withResult = declared.find((message) => message.result !== undefined);
    const result = withResult?.result === undefined ? undefined : schemas.of(withResult.result, types);
    const description = declared.map((message) => `${message.kind}: ${message.description}`).join('\n');
    files.push({
      file: `${name}.json`,
      schema: document(
        name,
        declared.map((message) => message.kind),
        description,
        input,
        result,
        types,
      ),
    });
  }
  files.push({
    file: 'index.json',
    schema: {
      contractVersion: CONTRACT_VERSION,
      workflowType: AGENT_WORKFLOW_TYPE,
      taskQueue: DEFAULT_TASK_QUEUE,
      encoding: 'json/plain',
      messages: files.map(({ file, schema }) => ({
        ...(schema['message'] as JsonObject),
        file,
        input: 'input' in (schema['definitions'] as JsonObject),
        result: 'result' in (schema['definitions'] as JsonObject),
      })),
    },
  });
  return files;
}

/** A file's text as written: two-space JSON and a final newline (.prettierignore leaves JSON alone). */
export const fileText = (schema: JsonObject): string => `${JSON.stringify(schema, null, 2)}\n`;

function main(): void {
  const dir = path.join(root, CONTRACT_DIR);
  mkdirSync(dir, { recursive: true });
  const files = buildContract();
  const wanted = new Set(files.map(({ file }) => file));
  let changed = 0;
  for (const stale of readdirSync(dir).filter((file) => file.endsWith('.json') && !wanted.has(file))) {
    rmSync(path.join(dir, stale));
    changed += 1;
  }
  for (const { file, schema } of files) {
    const target = path.join(dir, file);
    const text = fileText(schema);
    let current: string | undefined;
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    writeFileSync(target, text);
    changed += 1;
  }
  console.log(changed === 0 ? `${CONTRACT_DIR} is up to date` : `${CONTRACT_DIR}: ${changed} file(s) written`);
}

if (require.main === module) {
  try {
    main();
  } catch (error: unknown) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
