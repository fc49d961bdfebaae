// The deployment files (docker-compose.yml, Dockerfile, .dockerignore, deploy/) as a user relies on them. No Docker
// engine is needed: the YAML is parsed, the Dockerfile read as text, and the two scripts the containers run
// (search-attribute setup, worker health check) are run here for real, against a Temporal dev server and a local
// HTTP server.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resolveTemporalCli } from '../../src/dev/provision';
import { DEFAULT_TASK_QUEUE } from '../../src/shared/messages';
import { AgentPendingToolsKey, AgentStatusKey } from '../../src/shared/search-attributes';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

// ---------------------------------------------------------------------------------------------------------------
// docker-compose.yml

type DependsOn = string[] | Record<string, { condition?: string }>;
interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  container_name?: string;
  ports?: unknown[];
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: DependsOn;
  volumes?: Array<string | { type?: string; source?: string; target?: string; read_only?: boolean }>;
  healthcheck?: { test?: string | string[] };
  entrypoint?: string | string[];
  command?: string | string[];
  restart?: string;
  stop_grace_period?: string;
}
interface ComposeFile {
  version?: unknown;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const composeText = read('docker-compose.yml');
// Merge keys (`<<: *temporal-server`) are YAML 1.1, which Compose reads; the parser applies them only when asked.
const compose = parse(composeText, { merge: true }) as ComposeFile;
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
};

/** A service's environment as a map, whichever of the two Compose forms it uses. */
function environmentOf(svc: Service): Record<string, string> {
  const env = svc.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => [entry.split('=')[0] ?? '', entry.slice(entry.indexOf('=') + 1)]));
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value === null ? '' : String(value)]));
}

/** What Compose makes of a value when the shell sets none of the variables: `${VAR:-default}` becomes `default`. */
const withDefaults = (value: string): string => value.replace(/\$\{\w+:?-([^}]*)\}/g, '$1');

/** The `${...}` variables a value reads. */
const variablesIn = (value: string): string[] => [...value.matchAll(/\$\{(\w+)/g)].map((match) => match[1] ?? '');

/** Long-form conditions of depends_on (the short form means `service_started`). */
function dependencies(svc: Service): Record<string, string> {
  const deps = svc.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((name) => [name, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([name, dep]) => [name, dep.condition ?? 'service_started']));
}

/** A volume in short syntax (`source:target[:ro]`), whichever form the file uses. */
const volumesOf = (svc: Service): string[] =>
  (svc.volumes ?? []).map((volume) =>
    typeof volume === 'string'
      ? withDefaults(volume)
      : `${withDefaults(volume.source ?? '')}:${volume.target ?? ''}${volume.read_only ? ':ro' : ''}`,
  );

/** Short-syntax port mappings, after interpolation: `[ip:]host:container`. */
const portsOf = (svc: Service): string[] => (svc.ports ?? []).map((port) => withDefaults(String(port)));

/** Seconds in a Compose / Go duration such as `45s`, `1m30s`, `500ms`. */
function seconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== duration) {
    throw new Error(`bad duration ${duration}`);
  }
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 } as const;
  return parts.reduce((sum, [, amount, suffix]) => sum + Number(amount) * unit[suffix as keyof typeof unit], 0);
}

/** The worker's environment contract (what src/env.ts reads), every name of it and nothing else. */
const WORKER_ENV = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'WORKER_HEALTH_ADDRESS',
  'WORKER_METRICS_ADDRESS',
  'WORKER_SHUTDOWN_GRACE',
  'WORKER_LOG_LEVEL',
  'WORKER_TOOLS_ROOT',
  'WORKER_TOOLS_MODULE',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];

describe('docker-compose.yml', () => {
  const SERVER_SERVICES = {
    'temporal-history': 'history',
    'temporal-matching': 'matching',
    temporal: 'frontend',
    'temporal-internal-worker': 'worker',
  } as const;

  it('is a Compose-spec file (no version key): PostgreSQL, the four Temporal services, two one-shots, UI, worker', () => {
    expect(compose.version).toBeUndefined();
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'postgres',
        'temporal-schema',
        ...Object.keys(SERVER_SERVICES),
        'temporal-setup',
        'temporal-ui',
        'worker',
      ].sort(),
    );
  });

  it('uses the images Temporal supports for production, pinned to the versions the cluster tests run', () => {
    // The cluster the tests start runs server 1.29.1 (src/dev/cluster/binaries.ts). PostgreSQL stays at 16, what
    // earlier versions of this file created its volume with (15 here is Debian's; Temporal supports 12 and later).
    expect(service('postgres').image).toMatch(/^postgres:16(\.\d+)*$/);
    for (const name of Object.keys(SERVER_SERVICES)) expect(service(name).image, name).toBe('temporalio/server:1.29.1');
    expect(composeText).not.toContain('auto-setup'); // deprecated by Temporal
    expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:2\.42\.\d+$/);
    for (const name of ['temporal-schema', 'temporal-setup'])
      expect(service(name).image?.startsWith('temporalio/admin-tools:1.29.1-'), name).toBe(true);
    for (const [name, svc] of Object.entries(compose.services)) {
      if (svc.image === undefined) continue;
      expect(svc.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(svc.image, name).not.toMatch(/:latest$/);
    }
  });

  it('keeps PostgreSQL data in a named volume and reports PostgreSQL health with pg_isready', () => {
    const postgres = service('postgres');
    const dataVolume = volumesOf(postgres).find((volume) => volume.endsWith(':/var/lib/postgresql/data'));
    const volumeName = dataVolume?.split(':')[0] ?? '';
    expect(Object.keys(compose.volumes ?? {})).toContain(volumeName);
    expect(JSON.stringify(postgres.healthcheck?.test)).toContain('pg_isready');
  });

  it('sets up the schema with deploy/temporal/setup-schema.sh once PostgreSQL is healthy, same credentials', () => {
    const schema = service('temporal-schema');
    expect(dependencies(schema)).toEqual({ postgres: 'service_healthy' });
    expect(schema.restart ?? 'no').toBe('no');
    expect(volumesOf(schema)).toContain('./deploy:/deploy:ro');
    expect(schema.entrypoint).toEqual(['/bin/sh', '/deploy/temporal/setup-schema.sh']);
    const env = environmentOf(schema);
    expect(env.POSTGRES_SEEDS).toBe('postgres');
    expect(env.POSTGRES_USER).toBe(environmentOf(service('postgres')).POSTGRES_USER);
    expect(env.POSTGRES_PWD).toBe(environmentOf(service('postgres')).POSTGRES_PASSWORD);
  });

  it('runs each Temporal service in its own container with deploy/temporal’s config, as `npm run cluster` does', () => {
    for (const [name, role] of Object.entries(SERVER_SERVICES)) {
      const svc = service(name);
      // The same start script the cluster script runs (src/dev/cluster/services.ts), the service as its argument.
      expect(svc.entrypoint, name).toEqual(['/bin/sh', '/etc/temporal/agent/start-service.sh']);
      expect(svc.command, name).toEqual([role]);
      expect(volumesOf(svc), name).toContain('./deploy/temporal:/etc/temporal/agent:ro');
      expect(svc.restart, name).toBe('unless-stopped');
      const env = environmentOf(svc);
      expect(env.POSTGRES_SEEDS, name).toBe('postgres');
      expect(env.POSTGRES_USER, name).toBe(environmentOf(service('postgres')).POSTGRES_USER);
      expect(env.POSTGRES_PWD, name).toBe(environmentOf(service('postgres')).POSTGRES_PASSWORD);
      expect(withDefaults(env.NUM_HISTORY_SHARDS ?? ''), name).toBe('16');
      expect(env.FRONTEND_ADDRESS, name).toBe('temporal:7233');
    }
    expect(dependencies(service('temporal-history'))).toEqual({ 'temporal-schema': 'service_completed_successfully' });
    expect(portsOf(service('temporal'))).toEqual(['127.0.0.1:7233:7233']);
    for (const name of Object.keys(SERVER_SERVICES).filter((n) => n !== 'temporal'))
      expect(service(name).ports, name).toBeUndefined();
  });

  it('creates the namespace and registers the search attributes in a one-shot service running deploy/ scripts', () => {
    const setup = service('temporal-setup');
    expect(dependencies(setup)).toEqual({ temporal: 'service_started' });
    expect(setup.restart ?? 'no').toBe('no');
    expect(volumesOf(setup)).toContain('./deploy:/deploy:ro');
    expect(setup.entrypoint).toEqual([
      '/bin/sh',
      '-c',
      'sh /deploy/temporal/create-namespace.sh && sh /deploy/register-search-attributes.sh',
    ]);
    const env = environmentOf(setup);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.TEMPORAL_NAMESPACE).toBe(environmentOf(service('worker')).TEMPORAL_NAMESPACE);
    expect(withDefaults(env.TEMPORAL_NAMESPACE_RETENTION ?? '')).toBe('168h');
  });

  it('points the UI at temporal:7233 and publishes it on 8233, clear of the workers’ 8080', () => {
    const ui = service('temporal-ui');
    const env = environmentOf(ui);
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.TEMPORAL_CORS_ORIGINS).toContain('http://localhost:8233');
    expect(portsOf(ui)).toEqual(['127.0.0.1:8233:8080']);
  });

  it('builds the worker from the Dockerfile, with no container name or host port, so --scale works', () => {
    const worker = service('worker');
    const build = typeof worker.build === 'string' ? { context: worker.build } : worker.build;
    expect(build?.context).toBe('.');
    expect(build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    // A fixed name on any service would also keep two copies of the stack (two project names) from coexisting.
    for (const [name, svc] of Object.entries(compose.services)) expect(svc.container_name, name).toBeUndefined();
  });

  it('starts workers and the UI only once the namespace and the search attributes are set up', () => {
    for (const name of ['worker', 'temporal-ui'])
      expect(dependencies(service(name)), name).toEqual({ 'temporal-setup': 'service_completed_successfully' });
  });

  it('passes exactly the worker environment contract, with working defaults', () => {
    const env = environmentOf(service('worker'));
    expect(Object.keys(env).sort()).toEqual([...WORKER_ENV].sort());
    const resolved = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, withDefaults(value)]));
    expect(resolved).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: DEFAULT_TASK_QUEUE,
      WORKER_HEALTH_ADDRESS: '0.0.0.0:8080',
      WORKER_METRICS_ADDRESS: '0.0.0.0:9464',
      WORKER_TOOLS_ROOT: '/workspace',
    });
    // The model endpoint and tracing come from the host's environment; unset there means unset here.
    const fromHost = [
      'OPENAI_API_KEY',
      'OPENAI_BASE_URL',
      'OPENAI_MODEL',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'WORKER_TOOLS_MODULE',
    ];
    for (const name of fromHost) {
      expect(variablesIn(env[name] ?? ''), name).toEqual([name]);
      expect(resolved[name], name).toBe('');
    }
  });

  it('mounts a folder for your tools module under /app, where its imports of the package and zod resolve', () => {
    const mount = volumesOf(service('worker')).find((volume) => volume.includes(':/app/tools'));
    expect(mount).toBe('./tools:/app/tools:ro');
  });

  it('mounts the tools root read-only and lets Docker wait out the worker’s graceful shutdown', () => {
    const worker = service('worker');
    const env = environmentOf(worker);
    const mount = volumesOf(worker).find((volume) => volume.includes(':/workspace'));
    expect(mount).toBe(`./workspace:${env.WORKER_TOOLS_ROOT}:ro`);
    const grace = seconds(withDefaults(env.WORKER_SHUTDOWN_GRACE ?? ''));
    expect(grace).toBeGreaterThan(0);
    expect(seconds(worker.stop_grace_period ?? '10s')).toBeGreaterThan(grace);
  });

  it('gives every variable a default, so `docker compose up` works with nothing set', () => {
    const references = [...composeText.matchAll(/\$\{([^}]*)\}/g)].map((match) => match[1] ?? '');
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) expect(reference).toMatch(/^[A-Z][A-Z0-9_]*:-/);
    // A bare $NAME would be interpolated too, silently.
    expect(composeText.replace(/\$\{[^}]*\}/g, '')).not.toMatch(/\$[A-Za-z_]/);
  });

  const probe = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 20_000 });
  const composeCli = probe.status === 0;
  const why = (probe.error?.message ?? `${probe.stderr}${probe.stdout}`).trim().split('\n')[0];
  it.skipIf(!composeCli)(
    composeCli
      ? 'is accepted by `docker compose config`'
      : `is accepted by \`docker compose config\` (skipped: no Docker Compose here: ${why})`,
    () => {
      const result = spawnSync('docker', ['compose', '--file', 'docker-compose.yml', 'config', '--quiet'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// deploy/register-search-attributes.sh

const setupScript = path.join(root, 'deploy', 'register-search-attributes.sh');
const CLI_TYPE = { KEYWORD: 'Keyword', KEYWORD_LIST: 'KeywordList' } as const;

/** The NAME=Type lines of the script's ATTRIBUTES block. */
function scriptAttributes(): Record<string, string> {
  const block = /^ATTRIBUTES='\n([\s\S]*?)'$/m.exec(read('deploy/register-search-attributes.sh'))?.[1] ?? '';
  return Object.fromEntries(
    block
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('=') as [string, string]),
  );
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a program to its end; never rejects on a non-zero exit. */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeout = 50_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

describe('deploy/register-search-attributes.sh', () => {
  it('registers exactly the attributes the workflow sets: AgentStatus=Keyword, AgentPendingTools=KeywordList', () => {
    expect(scriptAttributes()).toEqual({ AgentStatus: 'Keyword', AgentPendingTools: 'KeywordList' });
    expect(scriptAttributes()).toEqual({
      [AgentStatusKey.name]: CLI_TYPE[AgentStatusKey.type as keyof typeof CLI_TYPE],
      [AgentPendingToolsKey.name]: CLI_TYPE[AgentPendingToolsKey.type as keyof typeof CLI_TYPE],
    });
  });

  // Against a real Temporal dev server of its own (in memory), with the Temporal CLI the suite already uses put on
  // PATH as `temporal`, the name the admin-tools image has it under.
  let cliPath: string | undefined;
  let binDir: string | undefined;
  let address = '';
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    const cli = await resolveTemporalCli();
    if (cli.type !== 'existing-path') return;
    cliPath = cli.path;
    binDir = await mkdtemp(path.join(os.tmpdir(), 'dra-deploy-bin-'));
    await symlink(cli.path, path.join(binDir, 'temporal'));
    address = `127.0.0.1:${await freePort()}`;
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
    if (binDir) await rm(binDir, { recursive: true, force: true });
  });

  const setup = (namespace: string, waitSeconds: number) =>
    run('sh', [setupScript], {
      ...process.env,
      PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      SETUP_WAIT_SECONDS: String(waitSeconds),
    });

  const customAttributes = async (namespace: string): Promise<unknown> => {
    const listed = await run(
      cliPath ?? 'temporal',
      ['operator', 'search-attribute', 'list', '--address', address, '--namespace', namespace, '--output', 'json'],
      process.env,
    );
    expect(listed.code, listed.output).toBe(0);
    return (JSON.parse(listed.output) as { customAttributes?: unknown }).customAttributes;
  };

  const NO_CLI = 'no Temporal CLI binary on this machine (the suite uses the SDK download)';

  it('waits for a server that is not up yet, then registers both attributes', async (ctx) => {
    if (!cliPath) ctx.skip(NO_CLI);
    const registering = setup('default', 60);
    let finished = false;
    void registering.then(() => (finished = true));
    await sleep(2000);
    expect(finished).toBe(false); // still polling a port nobody listens on yet
    const port = address.split(':')[1] ?? '';
    const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', port, '--namespace', 'clash'];
    server = spawn(cliPath ?? 'temporal', [...args, '--log-level', 'error'], { stdio: 'ignore' });
    const { code, output } = await registering;
    expect(code, output).toBe(0);
    expect(output).toContain(`waiting for the Temporal server at ${address}`);
    expect(await customAttributes('default')).toEqual({
      AgentStatus: 'INDEXED_VALUE_TYPE_KEYWORD',
      AgentPendingTools: 'INDEXED_VALUE_TYPE_KEYWORD_LIST',
    });
  });

  it('is idempotent: a second run succeeds and changes nothing', async (ctx) => {
    if (!cliPath || !server) ctx.skip(NO_CLI);
    const { code, output } = await setup('default', 30);
    expect(code, output).toBe(0);
    expect(output).toContain('AgentPendingTools (KeywordList) is registered in namespace default');
    expect(await customAttributes('default')).toEqual({
      AgentStatus: 'INDEXED_VALUE_TYPE_KEYWORD',
      AgentPendingTools: 'INDEXED_VALUE_TYPE_KEYWORD_LIST',
    });
  });

  it('fails at once (exit 2) when an attribute exists with another type', async (ctx) => {
    if (!cliPath || !server) ctx.skip(NO_CLI);
    const textAttribute = ['--name', 'AgentStatus', '--type', 'Text'];
    const clash = await run(
      cliPath ?? 'temporal',
      ['operator', 'search-attribute', 'create', '--address', address, '--namespace', 'clash', ...textAttribute],
      process.env,
    );
    expect(clash.code, clash.output).toBe(0);
    const started = Date.now();
    const { code, output } = await setup('clash', 60);
    expect(code, output).toBe(2);
    expect(output).toContain('cannot register AgentStatus as Keyword in namespace clash');
    expect(Date.now() - started).toBeLessThan(30_000); // not after the 60 s wait
  });

  it('gives up (exit 1) with the reason when the namespace never appears', async (ctx) => {
    if (!cliPath || !server) ctx.skip(NO_CLI);
    const { code, output } = await setup('missing', 2);
    expect(code, output).toBe(1);
    expect(output).toContain('gave up after 2s: waiting for namespace missing to exist');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Dockerfile, .dockerignore, deploy/worker-healthcheck.mjs

interface Stage {
  from: string;
  name: string | undefined;
  lines: Array<{ keyword: string; args: string }>;
}

/** The Dockerfile's stages and their instructions (continuations joined, comments dropped). */
function dockerStages(text: string): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  const lines = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  for (const line of lines) {
    const [, keyword = '', rest = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [from = '', , name] = rest.split(/\s+/);
      stages.push({ from, name: name?.toLowerCase(), lines: [] });
    } else if (stages.length === 0 && upper === 'ARG') {
      const [name = '', value = ''] = rest.split('=');
      args[name] = value;
    } else {
      stages.at(-1)?.lines.push({ keyword: upper, args: rest });
    }
  }
  return { args, stages };
}

const dockerfile = dockerStages(read('Dockerfile'));
const runtime = dockerfile.stages.at(-1);
const stageNamed = (name: string | undefined): Stage | undefined => dockerfile.stages.find((s) => s.name === name);
/** A stage and the stages it is built FROM, nearest first. */
const lineage = (stage: Stage | undefined): Stage[] => (stage ? [stage, ...lineage(stageNamed(stage.from))] : []);
const runs = (stage: Stage | undefined): string[] =>
  lineage(stage).flatMap((s) => s.lines.filter((l) => l.keyword === 'RUN').map((l) => l.args));
const instruction = (stage: Stage | undefined, keyword: string): string[] =>
  (stage?.lines ?? []).filter((line) => line.keyword === keyword).map((line) => line.args);
/** `COPY [--from=x] src... dest` → { from, sources }. */
const copies = (stage: Stage | undefined) =>
  instruction(stage, 'COPY').map((args) => {
    const words = args.split(/\s+/);
    const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
    const paths = words.filter((word) => !word.startsWith('--'));
    return { from, sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' };
  });

describe('Dockerfile', () => {
  it('is multi-stage on node:20-bookworm-slim', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile.args.NODE_IMAGE).toBe('node:20-bookworm-slim');
    for (const stage of dockerfile.stages) {
      const base = lineage(stage).at(-1)?.from;
      expect(base).toBe('${NODE_IMAGE}');
    }
  });

  it('builds dist/ with every dependency, and ships production dependencies only', () => {
    // The image copies only the compiler settings, src/ and the bundling script: the build needs nothing else (its
    // first step, emptying dist/, is node's own fs).
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.build).toMatch(
      /^node -e "[^"]*fs\.rmSync[^"]*" && tsc -p tsconfig\.build\.json && node scripts\/bundle-workflows\.mjs$/,
    );
    const fromStages = copies(runtime).filter((copy) => copy.from !== undefined);
    const dist = fromStages.find((copy) => copy.sources.includes('/app/dist'));
    const modules = fromStages.find((copy) => copy.sources.includes('/app/node_modules'));
    const buildRuns = runs(stageNamed(dist?.from)).join('\n');
    expect(buildRuns).toMatch(/npm install(?! .*--omit)/);
    expect(buildRuns).toContain('npm run build');
    const depsRuns = runs(stageNamed(modules?.from));
    expect(depsRuns.some((command) => /npm install .*--omit=dev/.test(command))).toBe(true);
    expect(depsRuns.join('\n')).not.toContain('npm run build');
  });

  it('installs with npm 11, so package.json’s allowScripts keeps dependency install scripts denied', () => {
    expect(JSON.parse(read('package.json'))).toHaveProperty('allowScripts');
    for (const stage of dockerfile.stages) {
      const commands = runs(stage);
      if (!commands.some((command) => /^npm install(?! --global)/.test(command))) continue;
      expect(
        commands.some((command) => /npm install --global .*npm@11\./.test(command)),
        stage.name,
      ).toBe(true);
    }
  });

  it('runs the worker as a non-root user', () => {
    const user = instruction(runtime, 'USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(instruction(runtime, 'ENTRYPOINT').at(-1)).toBe('["node", "dist/cli/main.js", "worker"]');
  });

  it('checks health with node against the worker’s /healthz', () => {
    const healthcheck = instruction(runtime, 'HEALTHCHECK').at(-1) ?? '';
    expect(healthcheck).toContain('CMD ["node", "/app/deploy/worker-healthcheck.mjs"]');
    const shipped = copies(runtime).find((copy) => copy.sources.includes('deploy/worker-healthcheck.mjs'));
    expect(shipped?.destination).toBe('./deploy/');
    expect(instruction(runtime, 'WORKDIR').at(-1)).toBe('/app');
    expect(read('deploy/worker-healthcheck.mjs')).toContain("path: '/healthz'");
  });
});

describe('.dockerignore', () => {
  const entries = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const included = entries.filter((entry) => entry.startsWith('!')).map((entry) => entry.slice(1));

  it('sends only what the Dockerfile copies: not node_modules, dist, .data, test, .git or .env files', () => {
    expect(entries[0]).toBe('*');
    const fromContext = dockerfile.stages.flatMap((stage) => copies(stage).filter((copy) => copy.from === undefined));
    const copied = fromContext.flatMap((copy) => copy.sources);
    expect([...new Set(copied)].sort()).toEqual([...included].sort());
    for (const kept of ['node_modules', 'dist', '.data', 'test', '.git', '.env', 'workspace']) {
      expect(
        included.some((entry) => entry === kept || entry.startsWith(`${kept}/`)),
        kept,
      ).toBe(false);
    }
  });
});

describe('deploy/worker-healthcheck.mjs', () => {
  const healthcheck = path.join(root, 'deploy', 'worker-healthcheck.mjs');
  const check = (healthAddress: string) =>
    run(process.execPath, [healthcheck], { ...process.env, WORKER_HEALTH_ADDRESS: healthAddress }, 20_000);

  /** A stand-in for the worker's health server answering /healthz with `status`. */
  async function healthServer(status: number): Promise<{ port: number; paths: string[]; close(): Promise<void> }> {
    const paths: string[] = [];
    const server = http.createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(request.url === '/healthz' ? status : 404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    return { port, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('exits 0 when /healthz on WORKER_HEALTH_ADDRESS answers 200 (a 0.0.0.0 bind is tried on loopback)', async () => {
    const server = await healthServer(200);
    try {
      const { code, output } = await check(`0.0.0.0:${server.port}`);
      expect(code, output).toBe(0);
      expect(server.paths).toEqual(['/healthz']);
    } finally {
      await server.close();
    }
  });

  it('exits 1 when /healthz answers 503', async () => {
    const server = await healthServer(503);
    try {
      const { code, output } = await check(`127.0.0.1:${server.port}`);
      expect(code).toBe(1);
      expect(output).toContain('answered 503');
    } finally {
      await server.close();
    }
  });

  it('exits 1 when nothing listens', async () => {
    const { code, output } = await check(`0.0.0.0:${await freePort()}`);
    expect(code).toBe(1);
    expect(output).toContain('failed');
  });
});
