// Brings a fresh or stale checkout to runnable: dependencies, build, Temporal CLI. `npm test` and `npm start` run it
// first, so it uses only Node built-ins (dependencies may not be installed yet) and is silent when nothing is to do.
// Everything it and its children print goes to stderr: stdout belongs to `run`'s answer.
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (...parts) => path.join(root, ...parts);
const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : undefined);

/** Runs a command (in the project root unless `cwd` says) with inherited stdio and returns its exit code. */
function run(command, args, { cwd = root, env = process.env } = {}) {
  // npm is `npm.cmd` on Windows, which only a shell can start.
  const result = spawnSync(command, args, { cwd, env, stdio: ['inherit', 2, 2], shell: process.platform === 'win32' });
  if (result.error) console.error(`setup: could not run ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

/** Like run(), but a failure ends setup with the child's exit code. */
function mustRun(command, args, options) {
  const code = run(command, args, options);
  if (code !== 0) process.exit(code);
}

/** Newest mtime of a folder's files and folders (folders too, so deleting or renaming a file also counts). */
function newest(dir) {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

// (a) Dependencies: npm keeps a copy of the lock it installed from in node_modules/.package-lock.json.
const lock = mtime(at('package-lock.json'));
const installed = mtime(at('node_modules', '.package-lock.json'));
if (!existsSync(at('node_modules')) || installed === undefined || (lock !== undefined && lock > installed)) {
  // `npm ci`, which installs exactly the lock and never writes it: `npm install` may rewrite the lock (it once added
  // @swc/core's other-platform builds that the committed lock lacked), and a fresh clone must stay clean. The lock
  // lists every platform's optional build; ci fetches only this platform's (test/unit/lockfile.test.ts checks both).
  console.error('setup: installing dependencies (npm ci)');
  if (run('npm', ['ci', '--no-audit', '--no-fund']) !== 0) {
    // ci refuses a lock that does not match package.json: someone edited the dependencies, so updating it is wanted.
    console.error('setup: npm ci failed (package.json and package-lock.json out of sync?); running npm install');
    mustRun('npm', ['install', '--no-audit', '--no-fund']);
  }
  // Mark what was installed as current, so a lock that npm left untouched cannot trigger a reinstall every run.
  const hiddenLock = at('node_modules', '.package-lock.json');
  if (existsSync(hiddenLock)) utimesSync(hiddenLock, new Date(), new Date());
}

// (b) Build when a source or compiler setting changed since the last successful build.
const stamp = at('dist', '.build-stamp');
const sources = Math.max(newest(at('src')), mtime(at('tsconfig.json')) ?? 0, mtime(at('tsconfig.build.json')) ?? 0);
if (!existsSync(at('dist')) || (mtime(stamp) ?? 0) < sources) {
  console.error('setup: building (npm run build)');
  // The stamp takes the build's start time: a file saved while tsc runs is then still newer and rebuilds next time.
  const started = new Date();
  mustRun('npm', ['run', 'build']);
  writeFileSync(stamp, '');
  utimesSync(stamp, started, started);
}

// (c) The Temporal CLI: found, else downloaded from temporal.download (seconds; TEMPORAL_CLI_DOWNLOAD_URL names a
// mirror), else built with Go (once, minutes); --quiet prints only when it does work.
// `--cluster` also provisions the production topology's programs: the Temporal server and its schema tool (built
// with Go once, like the CLI) and PostgreSQL (apt-get install postgresql where it is missing).
// `--polyglot` also builds the Go programs of the cross-language tests (polyglot/go, once per version of their sources).
const cluster = process.argv.includes('--cluster') ? ['--cluster'] : [];
const polyglot = process.argv.includes('--polyglot') ? ['--polyglot'] : [];
mustRun(process.execPath, [
  at('dist', 'dev', 'provision-command.js'),
  '--provision',
  '--quiet',
  ...cluster,
  ...polyglot,
]);

// (d) `--bench`: the LangGraph contender's own dependencies, kept out of the project's (bench/langgraph/package.json).
if (process.argv.includes('--bench')) {
  const dir = at('bench', 'langgraph');
  const benchLock = mtime(path.join(dir, 'package-lock.json'));
  // npm rewrites node_modules/.package-lock.json on every install: its age says when this folder was last installed.
  const hiddenLock = path.join(dir, 'node_modules', '.package-lock.json');
  const benchInstalled = mtime(hiddenLock);
  if (benchInstalled === undefined || (benchLock !== undefined && benchLock > benchInstalled)) {
    console.error(
      'setup: installing the LangGraph contender (bench/langgraph; compiles better-sqlite3, about a minute)',
    );
    // better-sqlite3 has no prebuilt binary reachable offline, so node-gyp compiles it; pointing it at this Node's
    // own headers (when the install has them) saves it from downloading them, which fails on a closed network.
    const nodeDir = path.resolve(path.dirname(process.execPath), '..');
    const headers = existsSync(path.join(nodeDir, 'include', 'node', 'node.h')) ? { npm_config_nodedir: nodeDir } : {};
    mustRun('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env: { ...process.env, ...headers } });
    if (existsSync(hiddenLock)) utimesSync(hiddenLock, new Date(), new Date());
  }
}

// (e) `--browser`: Debian's Chromium for the inbox's browser tests (nothing may download a browser). CHROMIUM_PATH
// names another one; otherwise apt-get installs the `chromium` package once (as root, or through sudo).
if (process.argv.includes('--browser')) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    console.error('setup: installing Chromium for the browser tests (apt-get install chromium, about a minute)');
    const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
    const apt = (...args) => {
      const [command, ...rest] = [...asRoot, 'apt-get', ...args];
      return run(command, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    };
    if (apt('update', '-qq') !== 0 || apt('install', '-y', '-qq', 'chromium') !== 0) {
      console.error(
        `setup: could not install Chromium; set CHROMIUM_PATH to a Chromium binary, or install it yourself`,
      );
      process.exit(1);
    }
  }
}
