import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');

/** The text of one `## ` section of the README, without its heading. */
function section(heading: string): string {
  return readme.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown file offers, with GitHub's -1, -2… for repeated headings. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~~)[\s\S]*?^\1/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1] ?? '');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs')).flatMap((file) => (file.endsWith('.md') ? [`docs/${file}`] : [])),
];

describe('README', () => {
  it('is short enough for a newcomer to finish', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('quick start is exactly npm start and npm test', () => {
    const commands = /```bash\n([\s\S]*?)```/.exec(section('Quick start'))?.[1]?.trim().split('\n');
    expect(commands).toEqual(['npm start', 'npm test']);
  });

  it.each(['tools.ts', 'worker.ts', 'start.ts'])('shows examples/hello-world/%s exactly as it is', (file) => {
    const shown = new RegExp(`\\n### \`${file.replace('.', '\\.')}\`\\n\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n`).exec(
      section('Hello world'),
    )?.[1];
    expect(shown, `the README's Hello world has no ### \`${file}\` code block`).toBeDefined();
    expect(shown).toBe(read(`examples/hello-world/${file}`));
  });
});

describe('the documentation', () => {
  it.each(documents)('%s links only to files and headings that exist', (document) => {
    const markdown = read(document).replace(/^(```|~~~~)[\s\S]*?^\1/gm, '');
    const broken: string[] = [];
    for (const match of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z]+:/.test(target)) continue; // http:, https:, mailto:
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? document : path.join(path.dirname(document), file);
      if (!existsSync(path.join(root, resolved))) {
        broken.push(`${target} (no file ${resolved})`);
      } else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor)) {
        broken.push(`${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the API reference's entry points are the package's exports", () => {
    const exported = Object.values(
      (JSON.parse(read('package.json')) as { exports: Record<string, string | { default: string }> }).exports,
    ).flatMap((target) => (typeof target === 'object' ? [target.default] : []));
    const sources = exported.map((file) => file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    const { entryPoints } = JSON.parse(read('typedoc.json')) as { entryPoints: string[] };
    expect([...entryPoints].sort()).toEqual(sources.sort());
  });
});
