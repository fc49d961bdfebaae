import { argsHash, canonicalJson } from '../../shared/canonical';

/**
 * Token-set Jaccard similarity at or above which two texts ask the same thing. 2/3 lets a short query gain or lose
 * one word ("apple price" / "apple stock price": 2/3) and lets a longer one be reworded by one word in six, but a
 * query of four words or fewer with one word swapped is a new question ("python list sort ascending" / "… descending":
 * 3/5), since pairs like that are how a model explores, not how it loops.
 */
export const NEAR_DUPLICATE_SIMILARITY = 2 / 3;

/** A text with more words than this is content (a file to write, a message), not a query: compared exactly. */
export const MAX_QUERY_WORDS = 32;

/**
 * Words that carry no request of their own: the glue a model adds or drops when it rephrases a query ("price of
 * apple" / "apple price"). Content words, including "current", "latest" or "stock", stay: they can change the request.
 */
const STOP_WORDS = new Set(
  (
    'a an the of for in on at to from by with about into over as and or is are was were be been being do does did ' +
    'what whats which who whom whose when where why how much many it its this that these those there here me my i ' +
    'you your we our us please can could would should will find search look up lookup get show tell give s'
  ).split(' '),
);

/**
 * A query-like text: words and sentence punctuation only. Anything else (`/`, `+`, `=`, `(`, `_`, `@`, `#`, `$`…)
 * marks an identifier, a path, an expression or code, where one character changes the meaning: those compare
 * exactly. A single word is compared exactly too.
 */
const QUERY_TEXT = /^[\p{L}\p{N}\s.,?!:;"']*$/u;
/** A token: a word, or a number with its decimal or thousands separators ("1.5", "2,000"). */
const TOKEN = /[\p{L}\p{N}]+(?:[.,]\p{N}+)*/gu;
const DIGIT = /\p{N}/u;

/** What a query-like text asks for: its content words (a set) and its numbers, each compared on its own terms. */
export interface QueryTokens {
  /** Content words, lower-cased, plural `s` folded, stop words removed: sorted and distinct. */
  readonly words: readonly string[];
  /** Tokens with a digit ("2023", "q3", "1.5"), sorted: they must match exactly (another page, year, quarter). */
  readonly numbers: readonly string[];
  /**
   * Names: capitalised content words past the first ("Apple", "Microsoft"), folded as `words` are, sorted and
   * distinct. The same question about another company or person is new work, however many words it shares.
   */
  readonly names: readonly string[];
}

/** The tokens of `text` when it reads as a query, or null when it must compare exactly. */
export function queryTokens(text: string): QueryTokens | null {
  // Possessives and hyphenated words read as plain words: "apple's" is "apple", "share-price" is "share price".
  const cased = text
    .replace(/['’][sS]\b/gu, '')
    .replace(/(?<=[\p{L}\p{N}])[-’'](?=[\p{L}\p{N}])/gu, ' ')
    .trim();
  if (!/\s/u.test(cased) || !QUERY_TEXT.test(cased)) return null;
  const tokens = cased.match(TOKEN) ?? [];
  if (tokens.length > MAX_QUERY_WORDS) return null;
  const words = new Set<string>();
  const names = new Set<string>();
  const numbers: string[] = [];
  tokens.forEach((token, index) => {
    const lower = token.toLowerCase();
    if (DIGIT.test(lower)) numbers.push(lower);
    else if (!STOP_WORDS.has(lower)) {
      words.add(foldPlural(lower));
      // The first word is capitalised as a sentence's is; later capitals mark a name.
      if (index > 0 && /^\p{Lu}/u.test(token)) names.add(foldPlural(lower));
    }
  });
  return { words: [...words].sort(), numbers: numbers.sort(), names: [...names].sort() };
}

/** A crude plural fold ("prices" → "price"), enough for the paraphrases a model makes; never for "ss", "us", "is". */
function foldPlural(word: string): string {
  return word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/u.test(word) ? word.slice(0, -1) : word;
}

/** Jaccard similarity of two sets given as sorted distinct lists: shared over all. Two empty sets are alike. */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const other = new Set(b);
  const shared = a.filter((word) => other.has(word)).length;
  return shared / (a.length + b.length - shared);
}

/**
 * A call reduced to what near-duplicate detection compares: the tool and every argument that must match exactly
 * (numbers, booleans, keys, identifiers, a query's numbers) as one hash, plus the content words of each query-like
 * text, in the order of the arguments' sorted keys.
 */
export interface CallPrint {
  readonly shape: string;
  readonly texts: readonly (readonly string[])[];
  /** The names of each query-like text, as `texts` (absent in prints carried from before names were read). */
  readonly names?: readonly (readonly string[])[];
}

/** The print of one call (arguments as the step recorded them). */
export function callPrint(tool: string, args: unknown): CallPrint {
  const texts: string[][] = [];
  const names: string[][] = [];
  const shape = reduce(args, texts, names);
  return names.some((list) => list.length > 0)
    ? { shape: argsHash([tool, shape]), texts, names }
    : { shape: argsHash([tool, shape]), texts };
}

function reduce(value: unknown, texts: string[][], names: string[][]): unknown {
  if (typeof value === 'string') {
    const tokens = queryTokens(value);
    if (!tokens) return value.trim().replace(/\s+/gu, ' ').toLowerCase();
    texts.push([...tokens.words]);
    names.push([...tokens.names]);
    // A marker no JSON argument can hold (an object key starting with NUL), carrying the numbers that must match.
    return { '\u0000query': tokens.numbers };
  }
  if (Array.isArray(value)) return value.map((item) => reduce(item, texts, names));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, item]) => [key, reduce(item, texts, names)]));
  }
  return value ?? null;
}

/**
 * Whether two calls ask the same thing: same tool, same exact arguments, and each query-like text similar enough to
 * its counterpart. Identical calls are near-duplicates too.
 */
export function nearDuplicateCalls(a: CallPrint, b: CallPrint): boolean {
  return (
    a.shape === b.shape &&
    a.texts.length === b.texts.length &&
    a.texts.every(
      (words, index) =>
        jaccard(words, b.texts[index] ?? []) >= NEAR_DUPLICATE_SIMILARITY &&
        sameSubject(a.names?.[index] ?? [], b.names?.[index] ?? []),
    )
  );
}

/**
 * Whether two queries can be about the same subject: unless both name someone and share no name. "Apple stock
 * price" and "price of apple" can; the same report "for Microsoft" and "for Alphabet" cannot.
 */
function sameSubject(a: readonly string[], b: readonly string[]): boolean {
  return a.length === 0 || b.length === 0 || a.some((name) => b.includes(name));
}

/** The distinct prints of a reply's calls, in a stable order (a reply's calls are a set, as for exact repeats). */
export function distinctPrints(prints: readonly CallPrint[]): CallPrint[] {
  const byText = new Map(prints.map((print) => [canonicalJson(print), print]));
  return [...byText.keys()].sort().map((key) => byText.get(key)!);
}

/** Whether every call of each reply has a near-duplicate in the other. */
export function nearDuplicateReplies(a: readonly CallPrint[], b: readonly CallPrint[]): boolean {
  const covers = (from: readonly CallPrint[], to: readonly CallPrint[]) =>
    from.every((print) => to.some((other) => nearDuplicateCalls(print, other)));
  return covers(a, b) && covers(b, a);
}
