import { createRequire } from 'node:module';
import { z } from 'zod';
import type { FieldIssue } from '../errors.js';
import { Lru } from '../lru.js';
import type { ResourceVariable } from './resource.js';
import type { SourceCodeVariable, VariableType, VariableValidation } from './variables.js';

/**
 * Typed variables (docs/contract.md §2): how a resource's variable values are judged against the
 * variables its source code version declares. Pure; the resource writes call checkVariables with the
 * version read from its stream, so REST and GraphQL refuse the same values with the same messages.
 */

/** Longest string a declared regex is run on: the rule's cost stays bounded whatever is sent. */
export const MAX_MATCHED_LENGTH = 10_000;

/**
 * How much backtracking analysis one pattern may take before it counts as unsafe: a number of steps,
 * so that the verdict does not depend on how busy the machine is (ordinary patterns take tens of
 * steps; `(a|a)*b` reaches the bound in about 0.15 s), and a time as the last resort.
 */
const ANALYSIS = { maxSteps: 2000, timeout: 1000 } as const;

/** A declared pattern as it is applied, or why it is not run. */
type Compiled = { readonly pattern: RegExp; readonly unsafe?: undefined } | { readonly pattern?: undefined; readonly unsafe: string };

// Compiled and analysed once per pattern: the same few declarations judge every request.
const compiled = new Lru<string, Compiled>(500);

// Loaded on the first pattern analysed (30 ms of every process's start otherwise, the CLI's included).
let detector: typeof import('redos-detector') | undefined;
const redosDetector = (): typeof import('redos-detector') =>
  (detector ??= createRequire(import.meta.url)('redos-detector') as typeof import('redos-detector'));

/**
 * Why matching `pattern` may take super-linear time (backtracking that grows faster than the value:
 * `(a|a)*b`, `(a+)+`, `[a-z]+[a-z]+`), or undefined when it takes linear time. redos-detector walks
 * every way the pattern can match the same text; one that takes too long to analyse counts as unsafe.
 */
function backtrackingProblem(pattern: RegExp): string | undefined {
  const result = redosDetector().isSafe(pattern, ANALYSIS);
  if (result.safe) return undefined;
  if (result.error === 'timedOut' || result.error === 'hitMaxSteps')
    return 'is too complex to prove safe: its matching time may grow faster than the value (simplify it)';
  return (
    'may take super-linear time to match: two parts of it can match the same text, as in (a|a)*, (a+)+ or [a-z]+[a-z]+ (simplify ' +
    'it so each part of the value can match one way only)'
  );
}

/**
 * The declared pattern as it is applied: anchored (the whole value must match), Unicode-aware, and
 * only when matching it takes linear time (then MAX_MATCHED_LENGTH bounds its cost).
 * @throws SyntaxError for a pattern that does not compile
 */
function compile(regex: string): Compiled {
  let entry = compiled.get(regex);
  if (!entry) {
    const pattern = new RegExp(`^(?:${regex})$`, 'u');
    const unsafe = backtrackingProblem(pattern);
    entry = unsafe === undefined ? { pattern } : { unsafe };
    compiled.set(regex, entry);
  }
  return entry;
}

/**
 * A declared rule as infra writes it. The regex must compile and must match in linear time
 * (checked by redos-detector): declarations are run against every request's values on the
 * service's event loop, so one that backtracks would let a short value stall the service.
 */
export const validationInput = z
  .strictObject({
    regex: z
      .string()
      .min(1, 'must not be empty')
      .max(500, 'at most 500 characters')
      .superRefine((regex, ctx) => {
        let entry: Compiled;
        try {
          entry = compile(regex);
        } catch (error) {
          ctx.addIssue({
            code: 'custom',
            message: `is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`,
          });
          return;
        }
        if (entry.unsafe !== undefined) ctx.addIssue({ code: 'custom', message: entry.unsafe });
      })
      .optional(),
    values: z
      .array(z.string().min(1, 'must not be empty').max(200, 'at most 200 characters'))
      .min(1, 'must list at least one value')
      .max(200, 'at most 200 values')
      .refine((values) => new Set(values).size === values.length, 'must not repeat a value')
      .optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    message: z.string().trim().min(1, 'must not be empty').max(500, 'at most 500 characters').optional(),
  })
  .superRefine((rule, ctx) => {
    if (rule.min !== undefined && rule.max !== undefined && rule.min > rule.max)
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'must not be less than min' });
  });

/**
 * The value type a declared `type` checks: one of the five, or — for versions written before types
 * were limited — the kind of an OpenTofu type expression (`list(string)` → list, `object({…})` →
 * map). `any` and anything unrecognised check nothing.
 */
export function variableTypeOf(type: string): VariableType | undefined {
  const compact = type.replace(/\s+/g, '');
  if (compact === 'string' || compact === 'number' || compact === 'bool' || compact === 'enum') return compact;
  if (/^(list|set|tuple)(\(|$)/.test(compact)) return 'list';
  if (/^(map|object)(\(|$)/.test(compact)) return 'map';
  return undefined;
}

const TYPE_NOUNS: Readonly<Record<VariableType, string>> = {
  string: 'a string',
  number: 'a number',
  bool: 'true or false',
  list: 'a list',
  map: 'a map (a JSON object)',
  enum: 'a string',
};

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function hasType(type: VariableType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'map':
      return isMap(value);
    case 'enum':
      return typeof value === 'string';
  }
}

/** What a range bounds for each type, and how a message names it. */
function measured(type: VariableType | undefined, value: unknown): { size: number; unit: (n: number) => string } | undefined {
  if (typeof value === 'number' && (type === 'number' || type === undefined)) return { size: value, unit: String };
  if (typeof value === 'string') return { size: value.length, unit: (n) => `${n} characters` };
  if (Array.isArray(value)) return { size: value.length, unit: (n) => `${n} entries` };
  if (isMap(value)) return { size: Object.keys(value).length, unit: (n) => `${n} keys` };
  return undefined;
}

/**
 * What is wrong with `value` for a declared variable (its type, then its rule), or undefined when
 * nothing is. Messages never quote the value: it may be a secret.
 */
export function valueProblem(
  declared: { readonly type: string; readonly validation?: VariableValidation | undefined },
  value: unknown,
): string | undefined {
  const type = variableTypeOf(declared.type);
  if (type !== undefined && !hasType(type, value)) return `must be ${TYPE_NOUNS[type]}`;
  const rule = declared.validation;
  if (!rule) return undefined;
  const refuse = (generic: string): string => rule.message ?? generic;
  // The declared values are the module's own vocabulary, not secrets: the message lists them.
  if (rule.values !== undefined && typeof value === 'string' && !rule.values.includes(value))
    return refuse(`must be one of ${rule.values.join(', ')}`);
  if (rule.regex !== undefined && typeof value === 'string') {
    if (value.length > MAX_MATCHED_LENGTH) return refuse(`must be at most ${MAX_MATCHED_LENGTH} characters`);
    // A version declared before patterns were analysed may hold one that backtracks: never run it.
    const { pattern } = compile(rule.regex);
    if (!pattern)
      return (
        `cannot be checked: the declared pattern ${rule.regex} may take super-linear time to match; its source code version must ` +
        `declare a simpler one`
      );
    if (!pattern.test(value)) return refuse(`must match ${rule.regex}`);
  }
  const measure = measured(type, value);
  if (measure !== undefined) {
    if (rule.min !== undefined && measure.size < rule.min) return refuse(`must be at least ${measure.unit(rule.min)}`);
    if (rule.max !== undefined && measure.size > rule.max) return refuse(`must be at most ${measure.unit(rule.max)}`);
  }
  return undefined;
}

/** The field a variable's issue is named by: `variables.<name>` (what the request form's input is called). */
export const variableField = (name: string): string => `variables.${name}`;

/**
 * Every problem of a resource's variables against its version's declarations, one per variable:
 * unknown names, missing required values (a declared default satisfies them), values of the wrong
 * type or outside the rule, and declared-sensitive variables sent as not sensitive (their value
 * would be shown). `version` names the version in messages (its identifier).
 */
export function checkVariables(declared: readonly SourceCodeVariable[], given: readonly ResourceVariable[], version: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const byName = new Map(declared.map((variable) => [variable.name, variable]));
  const givenNames = new Set<string>();
  for (const variable of given) {
    givenNames.add(variable.name);
    const declaration = byName.get(variable.name);
    const field = variableField(variable.name);
    if (!declaration) {
      issues.push({ field, message: `is not a variable of source code version ${version}` });
      continue;
    }
    if (declaration.sensitive && !variable.sensitive) {
      issues.push({ field, message: 'is declared sensitive: send it with sensitive: true' });
      continue;
    }
    if (variable.value === null || variable.value === undefined) {
      if (declaration.required && (declaration.default ?? null) === null) issues.push({ field, message: 'is required' });
      continue;
    }
    const problem = valueProblem(declaration, variable.value);
    if (problem !== undefined) issues.push({ field, message: problem });
  }
  for (const declaration of declared) {
    if (declaration.required && (declaration.default ?? null) === null && !givenNames.has(declaration.name))
      issues.push({ field: variableField(declaration.name), message: 'is required' });
  }
  return issues;
}
