/**
 * `npm test` and `npm start` run this (through scripts/setup.mjs) so a fresh machine has a Temporal CLI, with
 * `--cluster` (npm test, npm run cluster) the Temporal server, its schema tool and PostgreSQL, and with `--polyglot`
 * (npm test) the Go programs of the cross-language tests.
 */
// Only the CLI lookup is imported up front: `npm start` runs this before every demo, and the other modules (the
// SDK's test server above all) cost more to load than the lookup itself when there is nothing to do.
import { resolveTemporalCli } from './provision';
import { errorMessage } from '../shared/errors';

type Log = (line: string) => void;

/**
 * `node dist/dev/provision-command.js --provision [--quiet] [--cluster] [--polyglot]`: make the CLI (and with
 * --cluster the cluster's programs, with --polyglot the Go test programs) available now, exit 1 if not.
 */
async function main(argv: string[]): Promise<number> {
  const say: Log = (line) => void process.stderr.write(`${line}\n`);
  if (!argv.includes('--provision')) {
    say('usage: node dist/dev/provision-command.js --provision [--quiet] [--cluster] [--polyglot]');
    return 2;
  }
  try {
    if (argv.includes('--cluster')) {
      // Each says what it does when it builds or installs, and nothing when the programs are already there.
      const { resolvePostgresPrograms, resolveServerPrograms } = await import('./cluster/binaries.js');
      await resolveServerPrograms({ log: say });
      await resolvePostgresPrograms({ log: say });
    }
    // Built before the tests start, so a cold build (a minute or two) is not charged to a test's time limit.
    if (argv.includes('--polyglot')) await (await import('./go-polyglot.js')).resolvePolyglotPrograms({ log: say });
    const executable = await resolveTemporalCli({ log: say });
    if (executable.type === 'existing-path') {
      // --quiet (scripts/setup.mjs) keeps an already-provisioned CLI silent; a fresh download or build still says where.
      const fresh = executable.source === 'download' || executable.source === 'go-install';
      const quiet = argv.includes('--quiet') && !fresh;
      if (!quiet) say(`Temporal CLI (${executable.source}): ${executable.path}`);
      return 0;
    }
    // The SDK downloads lazily on first start: start and stop a throwaway server so a blocked download fails now.
    const { choosePort, startDevServer } = await import('./dev-server.js');
    const port = await choosePort(undefined);
    await (await startDevServer({ port, uiPort: await choosePort(undefined, port), log: say })).stop();
    say('Temporal CLI: downloaded by the SDK into its cache in the system temp folder');
    return 0;
  } catch (error) {
    say(errorMessage(error));
    return 1;
  }
}

// `typeof require` keeps this module importable where CommonJS globals are absent (vitest runs sources as ESM).
if (typeof require !== 'undefined' && require.main === module) {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code)); // main() reports its own errors
}
