/**
 * Arithmetic expression evaluator for the calculator tool: a hand-written tokenizer and recursive-descent
 * parser. It never reaches eval/Function/vm, so model-written text can only ever be arithmetic.
 *
 * Grammar (lowest to highest precedence):
 *   expression := term (('+' | '-') term)*
 *   term       := unary (('*' | '/' | '%') unary)*
 *   unary      := ('+' | '-') unary | power
 *   power      := primary ('^' | '**') unary)?  right-associative; -2^2 = -(2^2), 2^-1 = 0.5
 *   primary    := number | constant | name '(' arguments ')' | '(' expression ')'
 */

/** Longest expression accepted; bounds tokenizer work for hostile input. */
import { ToolInputError } from '../define-tool';

export const MAX_EXPRESSION_LENGTH = 1000;
/** Deepest nesting of parentheses, calls and unary signs; keeps recursion far from the stack limit. */
export const MAX_NESTING_DEPTH = 100;

/** A malformed or unevaluable expression; the message is one line the model can act on. */
export class ExpressionError extends ToolInputError {
  override readonly name = 'ExpressionError';
}

type Token =
  | { kind: 'number'; text: string; value: number; position: number }
  | { kind: 'identifier'; text: string; position: number }
  | { kind: 'symbol'; text: string; position: number }
  | { kind: 'invalid'; text: string; position: number }
  | { kind: 'end'; text: ''; position: number };

interface FunctionSpec {
  minArgs: number;
  maxArgs: number;
  apply: (args: number[]) => number;
}

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };

const unary = (fn: (x: number) => number): FunctionSpec => ({ minArgs: 1, maxArgs: 1, apply: (a) => fn(a[0]!) });

const FUNCTIONS: Readonly<Record<string, FunctionSpec>> = {
  sqrt: unary(Math.sqrt),
  abs: unary(Math.abs),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  asin: unary(Math.asin),
  acos: unary(Math.acos),
  atan: unary(Math.atan),
  log: unary(Math.log10),
  ln: unary(Math.log),
  exp: unary(Math.exp),
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  round: { minArgs: 1, maxArgs: 2, apply: (a) => roundTo(a[0]!, a[1] ?? 0) },
  min: { minArgs: 1, maxArgs: Infinity, apply: (a) => Math.min(...a) },
  max: { minArgs: 1, maxArgs: Infinity, apply: (a) => Math.max(...a) },
  pow: { minArgs: 2, maxArgs: 2, apply: (a) => Math.pow(a[0]!, a[1]!) },
};

/** Names of the functions the evaluator knows, for tool descriptions. */
export const SUPPORTED_FUNCTIONS: readonly string[] = Object.keys(FUNCTIONS);
/** Names of the constants the evaluator knows, for tool descriptions. */
export const SUPPORTED_CONSTANTS: readonly string[] = Object.keys(CONSTANTS);

function roundTo(value: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new ExpressionError(`round() digits must be an integer from 0 to 15, got ${formatNumber(digits)}`);
  }
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function formatNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : String(value).toLowerCase();
}

// Digits with an optional fraction, or a bare fraction like ".5"; the exponent only counts when digits follow it,
// so "2e" stays the number 2 followed by the constant e (and then fails as a missing operator).
const NUMBER_PATTERN = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const IDENTIFIER_PATTERN = /[A-Za-z_][A-Za-z0-9_]*/y;
const SYMBOLS = new Set(['+', '-', '*', '/', '%', '^', '(', ')', ',']);

/**
 * Pull-based tokenizer. It never throws: a bad character becomes an 'invalid' token, so the error names the first
 * thing the parser could not use ("process" in "process.exit()"), not the one-token lookahead after it.
 */
class Tokenizer {
  private position = 0;

  constructor(private readonly source: string) {}

  next(): Token {
    while (this.position < this.source.length && /\s/.test(this.source[this.position]!)) this.position += 1;
    const start = this.position;
    if (start >= this.source.length) return { kind: 'end', text: '', position: start };

    NUMBER_PATTERN.lastIndex = start;
    const number = NUMBER_PATTERN.exec(this.source);
    if (number) {
      this.position = NUMBER_PATTERN.lastIndex;
      return { kind: 'number', text: number[0], value: Number(number[0]), position: start };
    }
    IDENTIFIER_PATTERN.lastIndex = start;
    const identifier = IDENTIFIER_PATTERN.exec(this.source);
    if (identifier) {
      this.position = IDENTIFIER_PATTERN.lastIndex;
      return { kind: 'identifier', text: identifier[0], position: start };
    }
    const char = this.source[start]!;
    // Models trained on Python write powers as `**`: the same operator as `^`.
    if (this.source.startsWith('**', start)) {
      this.position += 2;
      return { kind: 'symbol', text: '^', position: start };
    }
    if (SYMBOLS.has(char)) {
      this.position += 1;
      return { kind: 'symbol', text: char, position: start };
    }
    this.position += 1;
    return { kind: 'invalid', text: char, position: start };
  }
}

class Parser {
  private current: Token;
  private depth = 0;

  constructor(private readonly tokens: Tokenizer) {
    this.current = tokens.next();
  }

  parseAll(): number {
    const value = this.parseExpression();
    if (this.current.kind !== 'end') throw this.unexpected();
    return value;
  }

  private advance(): Token {
    const token = this.current;
    this.current = this.tokens.next();
    return token;
  }

  private isSymbol(text: string): boolean {
    return this.current.kind === 'symbol' && this.current.text === text;
  }

  private expectSymbol(text: string): void {
    if (!this.isSymbol(text)) {
      if (this.current.kind === 'end') throw new ExpressionError(`unexpected end of expression; expected "${text}"`);
      throw this.unexpected(`; expected "${text}"`);
    }
    this.advance();
  }

  private unexpected(hint = ''): ExpressionError {
    const token = this.current;
    switch (token.kind) {
      case 'end':
        return new ExpressionError('unexpected end of expression');
      case 'number':
        return new ExpressionError(`unexpected number "${token.text}" at position ${token.position}${hint}`);
      case 'identifier':
        return new ExpressionError(`unexpected identifier "${token.text}" at position ${token.position}${hint}`);
      case 'symbol':
        return new ExpressionError(`unexpected "${token.text}" at position ${token.position}${hint}`);
      case 'invalid':
        return new ExpressionError(`unexpected character "${token.text}" at position ${token.position}${hint}`);
    }
  }

  /** Every recursive entry point goes through here so "((((...1" and "----...1" hit the same cap. */
  private nested<T>(parse: () => T): T {
    this.depth += 1;
    if (this.depth > MAX_NESTING_DEPTH) {
      throw new ExpressionError(`expression is nested too deeply (more than ${MAX_NESTING_DEPTH} levels)`);
    }
    try {
      return parse();
    } finally {
      this.depth -= 1;
    }
  }

  private parseExpression(): number {
    return this.nested(() => {
      let value = this.parseTerm();
      while (this.isSymbol('+') || this.isSymbol('-')) {
        const operator = this.advance().text;
        const right = this.parseTerm();
        value = checked(operator === '+' ? value + right : value - right, value, operator, right);
      }
      return value;
    });
  }

  private parseTerm(): number {
    let value = this.parseUnary();
    while (this.isSymbol('*') || this.isSymbol('/') || this.isSymbol('%')) {
      const operator = this.advance().text;
      const right = this.parseUnary();
      if (operator !== '*' && right === 0) throw new ExpressionError('division by zero');
      const result = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
      value = checked(result, value, operator, right);
    }
    return value;
  }

  private parseUnary(): number {
    if (this.isSymbol('+') || this.isSymbol('-')) {
      const negate = this.advance().text === '-';
      const operand = this.nested(() => this.parseUnary());
      return negate ? -operand : operand;
    }
    return this.parsePower();
  }

  private parsePower(): number {
    const base = this.parsePrimary();
    if (!this.isSymbol('^')) return base;
    this.advance();
    // The exponent is a unary so that 2^-1 works; recursion through parseUnary makes ^ right-associative.
    const exponent = this.nested(() => this.parseUnary());
    return checked(Math.pow(base, exponent), base, '^', exponent);
  }

  private parsePrimary(): number {
    const token = this.current;
    if (token.kind === 'number') {
      if (!Number.isFinite(token.value)) throw new ExpressionError(`number "${token.text}" is too large`);
      this.advance();
      return token.value;
    }
    if (token.kind === 'identifier') {
      this.advance();
      const name = token.text.toLowerCase();
      if (this.isSymbol('(')) return this.parseCall(token.text, name);
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name]!;
      throw new ExpressionError(`unexpected identifier "${token.text}" at position ${token.position}`);
    }
    if (this.isSymbol('(')) {
      this.advance();
      const value = this.parseExpression();
      this.expectSymbol(')');
      return value;
    }
    throw this.unexpected();
  }

  private parseCall(written: string, name: string): number {
    // Object.hasOwn keeps "constructor(...)" and friends from resolving to prototype members.
    const spec = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (!spec) throw new ExpressionError(`unknown function "${written}"`);
    this.advance(); // '('
    const args: number[] = [];
    if (!this.isSymbol(')')) {
      args.push(this.parseExpression());
      while (this.isSymbol(',')) {
        this.advance();
        args.push(this.parseExpression());
      }
    }
    this.expectSymbol(')');
    if (args.length < spec.minArgs || args.length > spec.maxArgs) {
      throw new ExpressionError(`${name}() takes ${describeArity(spec)}, got ${args.length}`);
    }
    const result = spec.apply(args);
    if (!Number.isFinite(result)) {
      throw new ExpressionError(`result of ${name}(${args.map(formatNumber).join(', ')}) is not a finite number`);
    }
    return result;
  }
}

function describeArity(spec: FunctionSpec): string {
  const plural = (n: number): string => `${n} argument${n === 1 ? '' : 's'}`;
  if (spec.maxArgs === Infinity) return `at least ${plural(spec.minArgs)}`;
  if (spec.minArgs === spec.maxArgs) return plural(spec.minArgs);
  return `${spec.minArgs} to ${plural(spec.maxArgs)}`;
}

function checked(result: number, left: number, operator: string, right: number): number {
  if (!Number.isFinite(result)) {
    throw new ExpressionError(
      `result of ${formatNumber(left)} ${operator} ${formatNumber(right)} is not a finite number`,
    );
  }
  return result;
}

/** Evaluates an arithmetic expression; throws ExpressionError for anything that is not valid, finite arithmetic. */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(
      `expression is too long (${expression.length} characters; the limit is ${MAX_EXPRESSION_LENGTH})`,
    );
  }
  if (expression.trim() === '') throw new ExpressionError('expression is empty');
  return new Parser(new Tokenizer(expression)).parseAll();
}
