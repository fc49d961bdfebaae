import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from '../../src';
import { TemporalCliNotFoundError } from '../../src/testing';
import { UsageError } from '../../src/cli/args';
import { AttachRefusedError } from '../../src/client/errors';
import { DevServerBusyError } from '../../src/dev/db-lock';
import { ExpressionError, PathNotFoundError, PathOutsideRootError } from '../../src/worker/tools/builtin';
import { DuplicateToolError } from '../../src/worker';
import { InvalidEnvironmentError } from '../../src/worker/env';
import { PayloadCodecError } from '../../src/common/data-converter';
import { DurableAgentError, ErrorType } from '../../src/shared/errors';
import type { WorkflowHandle } from '@temporalio/client';
import { sendMessage } from '../../src/client/conversation';
import { MessageRefusedError } from '../../src/client/errors';

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('one error family', () => {
  const classes = {
    AgentRunError: root.AgentRunError,
    AttachRefusedError,
    DecisionRefusedError: root.DecisionRefusedError,
    InvalidConfigError: root.InvalidConfigError,
    SearchAttributesMissingError: root.SearchAttributesMissingError,
    ToolInputError: root.ToolInputError,
    DuplicateToolError,
    ExpressionError,
    PathNotFoundError,
    PathOutsideRootError,
    InvalidEnvironmentError,
    PayloadCodecError,
    TemporalCliNotFoundError,
    UsageError,
    DevServerBusyError,
  };

  it.each(Object.entries(classes))('%s shares the base and names itself', (name, ErrorClass) => {
    const error = new (ErrorClass as new (message: string, ...rest: unknown[]) => Error)(
      'boom',
      'wf',
      undefined,
      undefined,
    );
    expect(error).toBeInstanceOf(DurableAgentError);
    expect(error.name).toBe(name);
  });

  it('every ApplicationFailure the package creates takes its type from ErrorType', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      // A failure type written as a string literal where the failure is built, instead of an ErrorType member.
      for (const match of text.matchAll(/ApplicationFailure\.(?:create|nonRetryable|retryable)\(([^;]*?)\)/gs)) {
        if (/['"`][A-Z]\w*Error['"`]/.test(match[1] ?? ''))
          offenders.push(`${path.relative(SRC, file)}: ${match[0].slice(0, 80)}`);
      }
    }
    expect(offenders).toEqual([]);
    const values = Object.values(ErrorType);
    expect(new Set(values).size).toBe(values.length);
    for (const value of values) expect(value).toMatch(/^[A-Z]\w+Error$/);
  });
});

describe("Temporal's update limits per run", () => {
  // The server's own wording when a run has taken its 2,000th update; the client only shows "Workflow Update failed".
  const refusedByServer = new Error('Workflow Update failed', {
    cause: new Error('limit on the total number of distinct updates in this workflow has been reached'),
  });

  it('a message the server refuses for the limit says so in one line, with what to do', async () => {
    const handle = { workflowId: 'chat-1', executeUpdate: () => Promise.reject(refusedByServer) };
    const sending = sendMessage(handle as unknown as WorkflowHandle, 'hello');
    await expect(sending).rejects.toThrow(MessageRefusedError);
    await expect(sending).rejects.toThrow(
      "Message refused: the run has taken Temporal's 2,000 updates per run and takes no more; send it again once " +
        'the conversation has handed over to a new run, which it does between turns',
    );
  });
});
