import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readEnv } from '../common/env';
import { startDevServer } from '../dev/dev-server';
import { checkRecordings, loadSources, type CheckReport } from '../replay/replay-check';
import { dataConverterFromEnv } from '../common/data-converter';
import { createOpenAIClient, prebuiltWorkflowBundle } from '../worker/index';
import { createDefaultRegistry } from '../worker/plugin';
import { loadToolsModule } from '../worker/tools/tools-module';
import { parseCommandArgs, readConfigFile, UsageError } from './args';
import { loadHistoryFile } from '../replay/history-file';
import { startOf } from '../replay/history-input';

type Say = (line: string) => void;

function printReport(report: CheckReport, say: Say): void {
  const mark = { unchanged: 'ok', accepted: 'accepted', changed: 'CHANGED', skipped: 'skipped' }[report.status];
  say(`${mark.padEnd(8)} ${report.name}${report.replayWorkflowId ? `  (replayed as ${report.replayWorkflowId})` : ''}`);
  for (const change of report.changes) say(`         ${change.kind}: ${change.detail}`);
  for (const note of report.notes) say(`         note: ${note}`);
}

/**
 * `durable-react-agent replay-check <history files or workflow IDs>`: replays each recorded run with the current
 * workflow and worker code on a throwaway dev server, the model answering from the recording, and reports what a
 * user would see change. Exit 1 on a change, 0 when nothing changed (or every change was accepted), 2 on bad input.
 */
export async function replayCheckCommand(argv: string[], out: Say, say: Say): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    accept: { type: 'boolean', default: false },
    'baseline-dir': { type: 'string' },
    config: { type: 'string' },
    'model-url': { type: 'string' },
    model: { type: 'string' },
    'tools-module': { type: 'string' },
    address: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const { values, positionals } = parsed;
  if (positionals.length === 0)
    throw new UsageError('replay-check needs history files or workflow IDs: durable-react-agent replay-check <...>');
  const env = readEnv();
  const ids = positionals.filter((arg) => !(arg.endsWith('.json') && existsSync(arg)));
  const missing = positionals.filter((arg) => arg.endsWith('.json') && !existsSync(arg));
  if (missing.length > 0) throw new UsageError(`no such history file: ${missing.join(', ')}`);
  // A file that cannot be read is invalid input (exit 2), said before a throwaway server is started for nothing.
  for (const file of positionals.filter((arg) => !ids.includes(arg))) {
    try {
      startOf(loadHistoryFile(file));
    } catch (error) {
      const reason = error instanceof RangeError ? 'it is nested too deeply to read' : (error as Error).message;
      throw new UsageError(`${file} cannot be replayed: ${reason}`);
    }
  }
  const address = values.address ?? env.temporalAddress;
  if (ids.length > 0 && !address)
    throw new UsageError(`${ids[0]} is not a history file; to read runs by ID, give --address or TEMPORAL_ADDRESS`);
  const registry = createDefaultRegistry(process.cwd());
  if (values['tools-module'])
    for (const tool of await loadToolsModule(path.resolve(values['tools-module']))) registry.register(tool);
  const fallbackUrl = values['model-url'];
  const fallback = fallbackUrl
    ? {
        openai: createOpenAIClient({ baseURL: fallbackUrl, apiKey: env.openaiApiKey ?? 'none' }),
        model: values.model ?? env.openaiModel,
      }
    : undefined;
  const config = values.config ? readConfigFile(values.config) : undefined;

  // Replays run on a server of their own: they are not the user's runs and must not show up among them.
  say('Starting a throwaway Temporal dev server for the replays…');
  const server = await startDevServer({ log: () => undefined });
  const connection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({
    connection: clientConnection,
    namespace: server.namespace,
    dataConverter: dataConverterFromEnv(env),
  });
  const source = address ? await Connection.connect({ address }) : undefined;
  try {
    const sourceClient = source
      ? new Client({ connection: source, namespace: env.temporalNamespace, dataConverter: dataConverterFromEnv(env) })
      : undefined;
    const sources = await loadSources(positionals, { client: sourceClient, baselineDir: values['baseline-dir'] });
    const bundle = env.payloadEncryptionKeys ? undefined : prebuiltWorkflowBundle();
    const reports = await checkRecordings(
      sources,
      {
        client,
        connection,
        registry,
        ...(bundle ? { workflowBundle: bundle } : {}),
        ...(fallback ? { fallback } : {}),
        ...(config ? { config } : {}),
      },
      { accept: values.accept, onReport: values.json ? undefined : (report) => printReport(report, say) },
    );
    if (values.json) out(JSON.stringify(reports));
    const changed = reports.filter((report) => report.status === 'changed').length;
    const skipped = reports.filter((report) => report.status === 'skipped').length;
    say(
      `${reports.length} recording(s): ${changed} changed, ${reports.length - changed - skipped} unchanged or accepted` +
        `${skipped ? `, ${skipped} skipped` : ''}${changed ? ' (accept the new behaviour with --accept)' : ''}`,
    );
    return changed > 0 ? 1 : 0;
  } finally {
    await source?.close();
    await clientConnection.close();
    await connection.close();
    await server.stop();
  }
}
