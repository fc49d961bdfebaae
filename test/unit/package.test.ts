import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { DurableAgentPlugin, stockBundleOptions } from '../../src/worker';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../../src/worker/plugin';
import * as workflowExports from '../../src/workflow';
import * as workerExports from '../../src/worker';
import { SANDBOX_SETUP_PATH } from '../../src/worker/workflow-bundle';
import * as rootExports from '../../src';

const root = path.resolve(__dirname, '../..');
const srcDir = path.join(root, 'src');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the package', () => {
  it('ships every file its README and docs link to, so the links work from node_modules', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const files = new Set(packed[0]?.files.map((file) => file.path));
    const shipped = (target: string) => files.has(target) || [...files].some((file) => file.startsWith(`${target}/`));
    const broken: string[] = [];
    for (const page of [...files].filter((file) => file === 'README.md' || /^docs\/.*\.md$/.test(file))) {
      for (const [, link] of readFileSync(path.join(root, page), 'utf8').matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
        if (!link || /^[a-z]+:/.test(link)) continue; // a URL, not a file of the package
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(page), link)).replace(/\/$/, '');
        if (!shipped(target)) broken.push(`${page} -> ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('ships source maps that carry their TypeScript, since src/ is not in the package', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const maps = (packed[0]?.files ?? []).map((file) => file.path).filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(100);
    const blind = maps.filter((map) => {
      const { sources, sourcesContent } = JSON.parse(readFileSync(path.join(root, map), 'utf8')) as {
        sources: string[];
        sourcesContent?: Array<string | null>;
      };
      return sources.some((_, index) => typeof sourcesContent?.[index] !== 'string');
    });
    expect(blind).toEqual([]);
  });

  it('declares every package its shipped code imports (an undeclared one breaks installs that do not hoist it)', () => {
    const imported = new Set<string>();
    for (const file of sourceFiles(path.join(root, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '([^.'][^']*)'/g)) {
        const specifier = match[1] ?? '';
        if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
        imported.add(
          specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? ''),
        );
      }
    }
    expect([...imported].filter((name) => !(name in manifest.dependencies))).toEqual([]);
  });

  it('DurableAgentPlugin adds the activities, and the stock workflows only to a worker that names none', () => {
    const plugin = new DurableAgentPlugin({ openai: {} as OpenAI, defaultModel: 'm', tools: [] });
    const bare = plugin.configureWorker({ taskQueue: 'q' });
    const stock = stockBundleOptions();
    expect(bare.workflowsPath).toBe(stock.workflowsPath);
    // Engine actions are counted by a workflow interceptor: in the stock workflows and in a worker's own, which may
    // run the agent workflow; a prebuilt bundle carries it from stockBundleOptions().
    expect(stock.workflowInterceptorModules).toHaveLength(1);
    expect(bare.interceptors?.workflowModules).toEqual(stock.workflowInterceptorModules);
    expect(Object.keys(bare.activities ?? {})).toEqual(
      expect.arrayContaining(['callModel', 'runTool', 'listTools', 'summarize', 'critique']),
    );
    const own = plugin.configureWorker({ taskQueue: 'q', workflowsPath: '/mine' });
    expect(own.workflowsPath).toBe('/mine');
    expect(own.interceptors?.workflowModules).toEqual(stock.workflowInterceptorModules);
    // The workflow cache is bounded unless the worker bounds it itself: memory follows the cache, not the runs.
    expect(bare.maxCachedWorkflows).toBe(DEFAULT_MAX_CACHED_WORKFLOWS);
    expect(plugin.configureWorker({ taskQueue: 'q', maxCachedWorkflows: 5000 }).maxCachedWorkflows).toBe(5000);
    expect(bare.bundlerOptions?.preloadModules).toEqual([SANDBOX_SETUP_PATH]);
    const traced = new DurableAgentPlugin({ openai: {} as OpenAI, tools: [], workflowStackTraces: true });
    expect(traced.configureWorker({ taskQueue: 'q' }).bundlerOptions?.preloadModules).toEqual([]);
    const bundled = plugin.configureWorker({ taskQueue: 'q', workflowBundle: { code: 'x' } });
    expect(bundled.workflowsPath).toBeUndefined();
    expect(bundled.workflowBundle).toEqual({ code: 'x' });
    expect(bundled.interceptors?.workflowModules).toBeUndefined();
    // The user's own activities stay beside the agent's.
    const mine = async () => 'mine';
    expect(Object.keys(plugin.configureWorker({ taskQueue: 'q', activities: { mine } }).activities ?? {})).toContain(
      'mine',
    );
  });
});

/** The names an entry point declares, types included (types leave no trace at runtime: the compiler counts them). */
function declaredNames(entry: string): string[] {
  const file = path.join(srcDir, entry);
  const program = ts.createProgram([file], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  return symbol ? checker.getExportsOfModule(symbol).map((each) => each.getName()) : [];
}

describe('each entry point keeps to its budget of names', () => {
  it('root: at most 40; workflow records and worker settings live in their own entry points', () => {
    const names = declaredNames('index.ts');
    expect(names.length).toBeLessThanOrEqual(40);
    expect(names).toEqual(expect.arrayContaining(Object.keys(rootExports)));
    expect(names).not.toContain('CarriedState');
  });

  it('./workflow: at most 20, with every update a plain Temporal client needs to decide, answer or message', () => {
    const names = declaredNames('workflow/index.ts');
    expect(names.length).toBeLessThanOrEqual(20);
    expect(names).toEqual(expect.arrayContaining(Object.keys(workflowExports)));
    expect(names).toEqual(
      expect.arrayContaining(['decideUpdate', 'answerUpdate', 'decideBudgetUpdate', 'sendMessageUpdate']),
    );
  });

  it("./worker: at most 25; option types are the plugin options' fields", () => {
    const names = declaredNames('worker/index.ts');
    expect(names.length).toBeLessThanOrEqual(25);
    expect(names).toEqual(expect.arrayContaining(Object.keys(workerExports)));
  });
});
