// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.

/** Upper-cases the first letter of a word. */
export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Turns a title into a URL slug, e.g. "Hello, World!" → "hello-world". */
export function slugify(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Splits text into lower-case word tokens for the search index. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}
