import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT, packageManifest } from '../common/package-version';
import { parseCommandArgs, UsageError } from './args';

/** The README's hello world, which the package ships: what a new project starts from. */
const HELLO_WORLD = path.join(PACKAGE_ROOT, 'examples', 'hello-world');
const FILES = ['tools.ts', 'worker.ts', 'start.ts', 'model.ts'] as const;

/**
 * The new project's package.json. The Temporal SDK is pinned to exactly the version this package is built with (a
 * worker and its plugin must share one SDK, and a `^` range lets npm pick a newer one); the rest follow this
 * package's own ranges, so what the project installs is what this release was tested with.
 */
function projectManifest(name: string): string {
  const own = packageManifest();
  const ranged = (names: string[], from: Record<string, string>) =>
    Object.fromEntries(names.map((dependency) => [dependency, from[dependency]!]));
  return `${JSON.stringify(
    {
      name,
      private: true,
      type: 'module',
      scripts: {
        dev: 'durable-react-agent dev --tools-module tools.ts --model-script model.ts',
        start: 'tsx start.ts',
        worker: 'tsx worker.ts',
        typecheck: 'tsc --noEmit',
      },
      dependencies: {
        'durable-react-agent': own.version,
        ...ranged(['@temporalio/client', '@temporalio/worker', 'zod'], own.dependencies),
      },
      devDependencies: ranged(['@types/node', 'tsx', 'typescript'], own.devDependencies),
    },
    null,
    2,
  )}\n`;
}

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
    include: ['*.ts'],
  },
  null,
  2,
)}\n`;

const GITIGNORE = 'node_modules/\n.data/\n';

const README = `# An agent on durable-react-agent

- \`tools.ts\`: the tools the agent may call (their handlers run on the worker, as Temporal activities).
- \`worker.ts\`: a worker of your own that serves them; \`start.ts\`: starts a run and prints its answer.
- \`model.ts\`: a scripted stand-in for a model (not an LLM), so everything runs with no key.

\`\`\`bash
npm install
npm run dev      # Temporal dev server, a worker with tools.ts, the approval inbox, the scripted model
npm start        # in a second terminal: a run, its workflow ID, then its answer
\`\`\`

\`npm run dev\` prints the Temporal UI's and the inbox's addresses, and restarts the worker when \`tools.ts\` changes.

A real model: set \`OPENAI_API_KEY\` (OpenAI), or \`OPENAI_BASE_URL\` for any OpenAI-compatible endpoint (Ollama,
vLLM, OpenRouter…), and \`OPENAI_MODEL\`, before \`npm run dev\`; the scripted model then stays off. In production
run \`worker.ts\` (\`npm run worker\`) against your Temporal server (\`TEMPORAL_ADDRESS\`).
`;

/**
 * `durable-react-agent init [DIR]`: a new project in DIR (default: the current folder) from the hello world the
 * package ships, with the SDK pinned, `type: module`, a strict tsconfig, a .gitignore for the dev server's `.data/`,
 * and the scripts that run it. It writes into an empty folder only, so it never overwrites anyone's work.
 */
export async function initCommand(argv: string[], say: (line: string) => void): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {});
  if (positionals.length > 1) throw new UsageError('init takes one folder, e.g. init my-agent');
  const dir = path.resolve(positionals[0] ?? '.');
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`${dir} is a file, not a folder`);
  const present = existsSync(dir) ? (await readdir(dir)).filter((entry) => entry !== '.git') : [];
  if (present.length > 0)
    throw new UsageError(
      `${dir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): init writes into an empty folder only`,
    );
  await mkdir(dir, { recursive: true });
  for (const file of FILES) await copyFile(path.join(HELLO_WORLD, file), path.join(dir, file));
  const name =
    path
      .basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-') || 'agent';
  await writeFile(path.join(dir, 'package.json'), projectManifest(name));
  await writeFile(path.join(dir, 'tsconfig.json'), TSCONFIG);
  await writeFile(path.join(dir, '.gitignore'), GITIGNORE);
  await writeFile(path.join(dir, 'README.md'), README);
  const cd = path.relative(process.cwd(), dir);
  say(`A new agent project in ${dir}: ${FILES.join(', ')}, package.json, tsconfig.json, .gitignore, README.md`);
  say('Next:');
  if (cd) say(`  cd ${cd}`);
  say('  npm install');
  say('  npm run dev     # dev server, worker, inbox and a scripted model: no key needed');
  say('  npm start       # in a second terminal: one run, then its answer');
  say('A real model: set OPENAI_API_KEY, or OPENAI_BASE_URL (any OpenAI-compatible endpoint) and OPENAI_MODEL.');
  return 0;
}
