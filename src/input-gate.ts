import { AppError, type FieldIssue } from './errors.js';

/**
 * The one input gate of every edge (REST bodies and query parameters, GraphQL documents and
 * variables over GET, POST and WebSockets): text holds no NUL and no lone UTF-16 surrogate (neither
 * can be stored by PostgreSQL), and nesting is bounded before any parser or recursive walk runs, so
 * nothing downstream (JSON.parse, graphql-js' parser, the idempotency fingerprint, the secret walks,
 * the event store's serialisation) can overflow its stack. Each refusal is a 400 naming the field.
 * docs/contract.md §1 ("Input") states the rules.
 */

/** The deepest nesting of arrays and objects (JSON) or of braces, brackets and parentheses (GraphQL) accepted. */
export const MAX_INPUT_DEPTH = 64;

const refuse = (field: string, message: string): AppError =>
  new AppError('VALIDATION', `invalid ${field}: ${message}`, { errors: [{ field, message }] });

/** What is wrong with one string, or undefined. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!text.isWellFormed()) return 'must not contain a lone UTF-16 surrogate (send well-formed Unicode)';
  return undefined;
}

/** Refuses a string with a NUL or a lone surrogate, naming `field`. */
export function checkText(text: string, field: string): void {
  const problem = textProblem(text);
  if (problem !== undefined) throw refuse(field, problem);
}

/** `a.b[2].c`: where a value sits, for messages. */
const join = (path: string, key: string | number): string =>
  typeof key === 'number'
    ? `${path}[${key}]`
    : path === ''
      ? key
      : /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${path}.${key}`
        : `${path}[${JSON.stringify(key)}]`;

/**
 * Refuses a parsed JSON value holding a bad string (as a value or a key) or nested deeper than
 * MAX_INPUT_DEPTH; walks with an explicit stack, so any depth is safe to check. Fields are named
 * from `field` (`''` for a request body: `name`, `configuration.a`, `variables[0].value`).
 */
export function checkJsonValue(value: unknown, field: string): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: field, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof current === 'string') {
      checkText(current, path || 'body');
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_INPUT_DEPTH) throw refuse(path || 'body', `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
    if (Array.isArray(current)) {
      current.forEach((element, index) => stack.push({ value: element, path: join(path, index), depth: depth + 1 }));
      continue;
    }
    for (const [key, element] of Object.entries(current)) {
      const at = join(path, key);
      checkText(key, at);
      stack.push({ value: element, path: at, depth: depth + 1 });
    }
  }
}

/**
 * The deepest nesting of `open`/`close` characters in `text`, outside string literals (`"…"` with
 * backslash escapes; GraphQL's `"""…"""` block strings and `#` comments when `graphql`): one linear
 * scan, no parser.
 */
export function nestingDepth(text: string, graphql = false): number {
  let depth = 0;
  let deepest = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      if (graphql && text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        i = end < 0 ? text.length : end + 3;
        continue;
      }
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i += 1;
      continue;
    }
    if (graphql && c === '#') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === '{' || c === '[' || (graphql && c === '(')) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === '}' || c === ']' || (graphql && c === ')')) depth -= 1;
    i += 1;
  }
  return deepest;
}

/** Refuses JSON text nested deeper than MAX_INPUT_DEPTH, before it is parsed. */
export function checkJsonDepth(text: string, field: string): void {
  if (nestingDepth(text) > MAX_INPUT_DEPTH) throw refuse(field, `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
}

/** JSON text from a client, parsed behind the gate: depth first, then the parse, then every string. */
export function parseJsonInput(text: string, field: string, parse: (text: string) => unknown = JSON.parse): unknown {
  checkJsonDepth(text, field);
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw refuse(field, 'must be valid JSON');
  }
  checkJsonValue(value, field);
  return value;
}

/**
 * A GraphQL document's text before it is parsed: nesting bounded (graphql-js' parser recurses per
 * level), no NUL or lone surrogate, and no `\u0000` escape in a string literal (PostgreSQL cannot
 * store the character it stands for).
 */
export function checkGraphqlSource(source: string, field = 'query'): void {
  checkText(source, field);
  if (nestingDepth(source, true) > MAX_INPUT_DEPTH) throw refuse(field, `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
  if (/\\u(?:0000|\{0+\})/i.test(source)) throw refuse(field, 'must not contain the NUL character (U+0000), escaped or not');
}

/** Every query parameter's text checked (repeated parameters are arrays of strings). */
export function checkQueryParameters(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    for (const text of Array.isArray(value) ? value : [value]) {
      if (typeof text !== 'string') continue;
      const problem = textProblem(name) ?? textProblem(text);
      if (problem !== undefined) issues.push({ field: name, message: problem });
    }
  }
  const first = issues[0];
  if (first) throw new AppError('VALIDATION', `invalid ${first.field}: ${first.message}`, { errors: issues });
}
