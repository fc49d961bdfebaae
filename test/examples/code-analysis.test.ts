import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CODE_ANALYSIS_CONFIG,
  CODE_ANALYSIS_CONFIG_FILE,
  CODE_ANALYSIS_QUERY,
  SAMPLE_CODEBASE,
} from '../../examples/code-analysis/agent';
import { parseRunArgs } from '../../src/cli/args';
import { validateAgentConfig } from '../../src/shared/agent-config';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-turn';
import { useHarness } from '../support/harness';

const harness = useHarness({ toolsRoot: SAMPLE_CODEBASE });

/** What a sensible model would grep for when asked about authentication. */
const AUTH_PATTERN = 'auth|login|logout|password|token|session|credential';
/** Words that make a function name about authentication; `tokenize` splits to "tokenize", not "token". */
const AUTH_WORDS = new Set([
  'auth',
  'authenticate',
  'login',
  'logout',
  'signin',
  'signout',
  'password',
  'token',
  'session',
  'credential',
  'credentials',
]);

/** Every function in the sample codebase that handles authentication, as `path: name`. */
const AUTH_FUNCTIONS = [
  'src/api/routes.ts: handleLogin',
  'src/api/routes.ts: handleLogout',
  'src/auth/password.ts: hashPassword',
  'src/auth/password.ts: resetPassword',
  'src/auth/password.ts: verifyPassword',
  'src/auth/session.ts: login',
  'src/auth/session.ts: logout',
  'src/auth/session.ts: sessionAccount',
  'src/auth/tokens.ts: issueToken',
  'src/auth/tokens.ts: verifyToken',
  'src/middleware/require-login.ts: requireAuth',
];
/** Every other function in the sample codebase. */
const OTHER_FUNCTIONS = [
  'handleInvoiceTotal',
  'subtotal',
  'invoiceTotal',
  'formatAmount',
  'updateDisplayName',
  'greetingName',
  'capitalize',
  'slugify',
  'tokenize',
  'hmac',
];

/** A tool result as the model received it, joined with the call that produced it. */
interface ToolResult {
  tool: string;
  args: Record<string, unknown>;
  content: string;
}

type WireToolCall = { id: string; function: { name: string; arguments: string } };

/** Pairs each tool message of a request with its call, as a model reading its own transcript would. */
function toolResultsOf(request: RecordedRequest): ToolResult[] {
  const calls = new Map<string, WireToolCall['function']>();
  for (const message of request.messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as WireToolCall[]) calls.set(call.id, call.function);
  }
  return request.messages
    .filter((message) => message.role === 'tool')
    .map((message) => {
      const call = calls.get(message.tool_call_id ?? '');
      const args = call ? (JSON.parse(call.arguments) as Record<string, unknown>) : {};
      return { tool: call?.name ?? 'unknown', args, content: String(message.content) };
    });
}

/** Folder names from a list_directory observation. */
function foldersIn(listing: string): string[] {
  const parsed = JSON.parse(listing) as { entries: Array<{ name: string; type: string }> };
  return parsed.entries.filter((entry) => entry.type === 'dir').map((entry) => entry.name);
}

/** Source files named in a grep_search observation (read as text, so a truncated one still yields paths). */
function sourceFilesIn(grepObservation: string): string[] {
  const paths = [...grepObservation.matchAll(/"path":\s*"([^"]+)"/g)].map((match) => match[1]!);
  return [...new Set(paths)].filter((file) => /\.[cm]?[jt]sx?$/.test(file));
}

/** Function declarations (`function name(` or `const name = (...) =>`) with the doc comment right above them. */
const DECLARATION =
  /(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?(?:export\s+)?(?:async\s+)?(?:function\s+(\w+)\s*\(|const\s+(\w+)\s*=\s*(?:async\s*)?(?:\([^()]*\)|\w+)\s*(?::[^=]+)?=>)/g;

function declarationsIn(source: string): Array<{ name: string; doc: string }> {
  return [...source.matchAll(DECLARATION)].map((match) => ({
    name: (match[2] ?? match[3])!,
    doc: (match[1] ?? '')
      .replace(/^\s*\*\s?/gm, '')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
}

function isAboutAuthentication(name: string): boolean {
  return name.split(/(?=[A-Z])/).some((word) => AUTH_WORDS.has(word.toLowerCase()));
}

/**
 * Behaves like a sensible model: look at the layout, grep for authentication words, read every matching file in one
 * reply, then answer from what the files really contain (names and doc comments), judging each function by its name.
 */
const analyst: ScriptedResponder = (request) => {
  const results = toolResultsOf(request);
  const listing = results.find((result) => result.tool === 'list_directory');
  const grep = results.find((result) => result.tool === 'grep_search');
  const reads = results.filter((result) => result.tool === 'read_file' && !result.content.startsWith('[error]'));
  if (!listing) {
    return {
      thought:
        'I know nothing about this codebase yet, so I first look at its top-level layout to decide where to search.',
      toolCalls: [{ name: 'list_directory', args: { path: '.' } }],
    };
  }
  if (!grep) {
    const folders = foldersIn(listing.content);
    const where = folders.includes('src') ? 'src' : '.';
    return {
      thought: `The root holds ${folders.join(', ')}. Authentication code mentions logins, passwords, tokens or sessions, so I grep "${where}" for those words, ignoring case.`,
      toolCalls: [
        {
          name: 'grep_search',
          args: { pattern: AUTH_PATTERN, regex: true, ignoreCase: true, path: where, maxResults: 200 },
        },
      ],
    };
  }
  if (reads.length === 0) {
    const files = sourceFilesIn(grep.content);
    if (files.length === 0)
      return { answer: 'No function in this codebase mentions logins, passwords, tokens or sessions.' };
    return {
      thought: `Matches are in ${files.length} files (${files.join(', ')}). A matching line is not proof, so I read each file to judge its functions.`,
      toolCalls: files.map((file) => ({ name: 'read_file', args: { path: file } })),
    };
  }
  const lines = reads.flatMap((read) =>
    declarationsIn(read.content)
      .filter((declaration) => isAboutAuthentication(declaration.name))
      .map(
        (declaration) =>
          `- ${String(read.args.path)}: ${declaration.name} — ${declaration.doc || 'named for authentication'}`,
      ),
  );
  return { answer: `Functions that handle user authentication (${lines.length}):\n${lines.join('\n')}` };
};

/** The `path: name` pairs an answer lists, one per `- path: name — why` line. */
function listedFunctions(answer: string): string[] {
  return [...answer.matchAll(/^- (\S+): (\w+) — .+$/gm)].map((match) => `${match[1]}: ${match[2]}`).sort();
}

describe('code-analysis example: find all functions that handle user authentication', () => {
  it('searches, reads the matching files and lists every auth function and nothing else', async () => {
    const run = await harness.start(analyst, CODE_ANALYSIS_QUERY, CODE_ANALYSIS_CONFIG);
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    const answer = result.finalAnswer ?? '';
    expect(listedFunctions(answer)).toEqual([...AUTH_FUNCTIONS].sort());
    for (const name of OTHER_FUNCTIONS) expect(answer).not.toMatch(new RegExp(`\\b${name}\\b`));
    // The reasons are the files' own doc comments, so they reached the model through read_file.
    expect(answer).toContain('src/auth/password.ts: hashPassword — Hashes a plaintext password with scrypt');
    expect(answer).toContain(
      'src/middleware/require-login.ts: requireAuth — Middleware that rejects requests without a valid bearer token',
    );

    const calls = result.trace.steps.flatMap((step) => (step.action.type === 'tool_call' ? [step.action] : []));
    expect(calls.slice(0, 2).map((call) => call.tool)).toEqual(['list_directory', 'grep_search']);
    expect(new Set(calls.slice(2).map((call) => call.tool))).toEqual(new Set(['read_file']));
    const read = calls
      .slice(2)
      .map((call) => (call.args as { path: string }).path)
      .sort();
    // The grep found the string helper `tokenize` too; it was read and judged, and billing code was never opened.
    expect(read).toEqual([
      'src/api/routes.ts',
      'src/auth/password.ts',
      'src/auth/session.ts',
      'src/auth/tokens.ts',
      'src/middleware/require-login.ts',
      'src/utils/strings.ts',
    ]);
    expect(result.trace.toolUsage).toEqual({ list_directory: 1, grep_search: 1, read_file: 6 });

    expect(result.trace.steps.filter((step) => step.isError)).toEqual([]);
    expect(result.trace.steps.filter((step) => step.truncated)).toEqual([]);
    expect(result.trace.errorHistory).toEqual([]);
    expect(result.trace.rejectedThoughts).toBe(0);
  });

  it('refuses to read or list outside the sample codebase', async () => {
    const thought = 'The package manifest might say which auth library is used, so I try to open it.';
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'read_file', args: { path: '../../package.json' } }] },
        { thought, toolCalls: [{ name: 'list_directory', args: { path: '..' } }] },
        {
          thought,
          toolCalls: [
            {
              name: 'grep_search',
              args: { pattern: 'durable-react-agent', path: path.resolve(SAMPLE_CODEBASE, '../../..') },
            },
          ],
        },
        { answer: 'Only the sample codebase can be read.' },
      ],
      CODE_ANALYSIS_QUERY,
      CODE_ANALYSIS_CONFIG,
    );
    const result = await run.result();

    expect(result.terminationReason).toBe('success');
    expect(result.trace.steps.slice(0, 3).map((step) => step.isError)).toEqual([true, true, true]);
    for (const step of result.trace.steps.slice(0, 3)) {
      expect(step.observation).toMatch(/^\[error\] \w+\(.*\): path ".*" is outside the allowed root/);
      expect(step.observation).not.toContain('"name": "durable-react-agent"');
    }
    // A path outside the root is the model's mistake to correct (invalid arguments), not a failing tool.
    expect(result.trace.errorHistory.map((entry) => entry.kind)).toEqual([
      'invalid_arguments',
      'invalid_arguments',
      'invalid_arguments',
    ]);
  });

  it('the expected lists name every function of the sample codebase exactly once', () => {
    const files = readdirSync(SAMPLE_CODEBASE, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    const declared = files.flatMap((file) =>
      declarationsIn(readFileSync(path.join(SAMPLE_CODEBASE, file), 'utf8')).map((declaration) => declaration.name),
    );
    const expected = [...AUTH_FUNCTIONS.map((entry) => entry.split(': ')[1]!), ...OTHER_FUNCTIONS];
    expect(declared.sort()).toEqual(expected.sort());
  });

  it('config.json is a valid config the CLI reads exactly as the README says', () => {
    const options = parseRunArgs([
      '--root',
      SAMPLE_CODEBASE,
      '--config',
      CODE_ANALYSIS_CONFIG_FILE,
      CODE_ANALYSIS_QUERY,
    ]);
    expect(options).toMatchObject({
      query: CODE_ANALYSIS_QUERY,
      toolsRoot: SAMPLE_CODEBASE,
      config: CODE_ANALYSIS_CONFIG,
    });
    const validation = validateAgentConfig(CODE_ANALYSIS_CONFIG);
    expect(validation.ok).toBe(true);
    expect(CODE_ANALYSIS_CONFIG.tools).toEqual(['grep_search', 'list_directory', 'read_file']);
  });
});
