import { readFileSync } from 'node:fs';
import path from 'node:path';

/** This package's root: two folders above src/common and dist/common alike, where package.json and examples/ ship. */
export const PACKAGE_ROOT = path.join(__dirname, '..', '..');

/** The parts of this package's package.json that the CLI reads. */
export interface PackageManifest {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

let manifest: PackageManifest | undefined;

/** This package's package.json, read once when first asked, so the version never drifts from the release. */
export function packageManifest(): PackageManifest {
  manifest ??= JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as PackageManifest;
  return manifest;
}

export const packageVersion = (): string => packageManifest().version;
