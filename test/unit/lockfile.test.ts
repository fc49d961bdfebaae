import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// `npm run setup` (which `npm test` runs first) installs with `npm ci`, which refuses a lock that is incomplete or out
// of sync with package.json; `npm install` would instead rewrite the lock and leave a fresh clone dirty.
const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;

interface LockedPackage {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

/** Where npm finds `name` for the package at `location`: its own node_modules, then each enclosing one. */
function resolves(location: string, name: string): boolean {
  for (let dir = location; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
  }
}

describe('package-lock.json', () => {
  it('has the dependencies package.json declares', () => {
    const locked = lock.packages[''];
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'] as const)
      expect(locked?.[field] ?? {}, field).toEqual(manifest[field] ?? {});
  });

  it("lists every package's dependencies, every platform's optional builds included, so npm ci accepts it", () => {
    const missing = Object.entries(lock.packages).flatMap(([location, entry]) =>
      Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })
        .filter((name) => !resolves(location, name))
        .map((name) => `${location || '(root)'} → ${name}`),
    );
    expect(missing).toEqual([]);
  });

  // In a git checkout whose package.json is as committed (CI's fresh clone after setup), the lock must be too.
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const committedManifest = (): boolean => {
    try {
      return git('status', '--porcelain', '--', 'package.json') === '';
    } catch {
      return false; // not a git checkout, or no git: nothing to compare with
    }
  };
  it.skipIf(!existsSync(path.join(root, '.git')) || !committedManifest())(
    'is left as committed by setup when package.json is',
    () => {
      expect(git('status', '--porcelain', '--', 'package-lock.json')).toBe('');
    },
  );
});
