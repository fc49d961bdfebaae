import { readFileSync } from 'node:fs';
import path from 'node:path';

let version: string | undefined;

/**
 * This package's version, from its package.json: two folders above src/common and dist/common alike, so it never
 * drifts from the release. Read once, when first asked.
 */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
  ).version;
  return version;
}
