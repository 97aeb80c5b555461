import type { Validator } from 'react-admin';

/**
 * Typed variables in the UI (docs/contract.md §2): a version's declarations as the API shows them,
 * the client-side checks that mirror the service's (src/model/variable-values.ts: the service decides
 * anyway, and its 422 names each variable under its input), and the conversions between the API's
 * variable list and the form's map of values by name (`variables.<name>`, the field the 422 names).
 */

/** The six value types (an `enum` is a string among its declared values). */
export const VARIABLE_TYPES = ['string', 'number', 'bool', 'list', 'map', 'enum'] as const;
/** A value type. */
export type VariableType = (typeof VARIABLE_TYPES)[number];

/** A declared variable's rule. */
export interface VariableValidation {
  readonly regex?: string;
  /** An enum's choices. */
  readonly values?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly message?: string;
}

/** A declared variable, as a version holds it. */
export interface VariableDeclaration {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly default: unknown;
  readonly description: string;
  readonly sensitive: boolean;
  readonly validation?: VariableValidation;
}

/** A resource's variable, as the API takes and shows it. */
export interface ResourceVariable {
  readonly name: string;
  readonly value: unknown;
  readonly sensitive: boolean;
}

/** What a sensitive value is shown as; sent back, it keeps the stored value. */
export const MASK = '********';

/** The kind of a declared type; older versions may hold OpenTofu expressions (`map(string)`). */
export function typeOf(type: string): VariableType | undefined {
  const compact = type.replace(/\s+/g, '');
  if (compact === 'string' || compact === 'number' || compact === 'bool' || compact === 'enum') return compact;
  if (/^(list|set|tuple)(\(|$)/.test(compact)) return 'list';
  if (/^(map|object)(\(|$)/.test(compact)) return 'map';
  return undefined;
}

/** Whether a list type holds text (typed as chips) rather than numbers or structures (typed as JSON). */
export const isTextList = (type: string): boolean => /^(list|set)(\((string|any)\))?$/.test(type.replace(/\s+/g, ''));

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Nothing entered. */
export const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

/** Whether the declaration must be given a value (required, and no default). */
export const mustBeGiven = (declaration: VariableDeclaration): boolean => declaration.required && isEmpty(declaration.default);

/** The service's messages, for the same faults (so both read alike). */
function problemOf(declaration: VariableDeclaration, value: unknown): string | undefined {
  const type = typeOf(declaration.type);
  const typeFault: Record<VariableType, string> = {
    string: 'a string',
    number: 'a number',
    bool: 'true or false',
    list: 'a list',
    map: 'a map (a JSON object)',
    enum: 'a string',
  };
  const typed =
    type === undefined ||
    ((type === 'string' || type === 'enum') && typeof value === 'string') ||
    (type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (type === 'bool' && typeof value === 'boolean') ||
    (type === 'list' && Array.isArray(value)) ||
    (type === 'map' && isMap(value));
  if (!typed) return `must be ${typeFault[type]}`;
  const rule = declaration.validation;
  if (!rule) return undefined;
  const refuse = (generic: string): string => rule.message ?? generic;
  if (rule.values !== undefined && typeof value === 'string' && !rule.values.includes(value))
    return refuse(`must be one of ${rule.values.join(', ')}`);
  if (rule.regex !== undefined && typeof value === 'string') {
    try {
      if (!new RegExp(`^(?:${rule.regex})$`, 'u').test(value)) return refuse(`must match ${rule.regex}`);
    } catch {
      return undefined; // the service judges a pattern the browser cannot compile
    }
  }
  const size =
    typeof value === 'number'
      ? value
      : typeof value === 'string' || Array.isArray(value)
        ? value.length
        : isMap(value)
          ? Object.keys(value).length
          : undefined;
  const unit = typeof value === 'number' ? '' : typeof value === 'string' ? ' characters' : Array.isArray(value) ? ' entries' : ' keys';
  if (size !== undefined && rule.min !== undefined && size < rule.min) return refuse(`must be at least ${rule.min}${unit}`);
  if (size !== undefined && rule.max !== undefined && size > rule.max) return refuse(`must be at most ${rule.max}${unit}`);
  return undefined;
}

/** The client-side check of one declared variable's input. */
export function validatorOf(declaration: VariableDeclaration): Validator {
  const validate = (value: unknown) => {
    // A stored sensitive value shown masked is kept as it is: nothing to judge here.
    if (value === MASK) return undefined;
    if (isEmpty(value)) return mustBeGiven(declaration) ? 'is required' : undefined;
    return problemOf(declaration, value);
  };
  // react-admin marks an input whose validator says `isRequired` with an asterisk, as for required().
  return mustBeGiven(declaration) ? Object.assign(validate, { isRequired: true }) : validate;
}

/** The API's variable list → the form's values by name. */
export const toValueMap = (variables: unknown): Record<string, unknown> =>
  Array.isArray(variables)
    ? Object.fromEntries((variables as ResourceVariable[]).map((v) => [v.name, v.value]))
    : isMap(variables)
      ? variables
      : {};

/**
 * The form's values by name → the API's list: empty inputs are left out (the declared default
 * applies), sensitive ones are marked as declared.
 */
export function toVariableList(values: unknown, declarations: readonly VariableDeclaration[]): ResourceVariable[] {
  const byName = toValueMap(values);
  return declarations.flatMap((declaration) => {
    const value = byName[declaration.name];
    return isEmpty(value) ? [] : [{ name: declaration.name, value, sensitive: declaration.sensitive }];
  });
}

/** An enum's values from the form: the API's list, or the comma-separated text typed. */
export function enumValues(values: unknown): string[] {
  const list = Array.isArray(values) ? values : typeof values === 'string' ? values.split(',') : [];
  return list.flatMap((value) => (typeof value === 'string' && value.trim() !== '' ? [value.trim()] : []));
}

/** A declaration as the version form holds it (inputs leave `null` and `''` where nothing was entered). */
interface DeclarationDraft {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly required?: unknown;
  readonly default?: unknown;
  readonly description?: unknown;
  readonly sensitive?: unknown;
  readonly validation?: Record<string, unknown> | null;
}

/** The version form's declarations as the API takes them: empty rule parts and empty defaults left out. */
export function cleanDeclarations(drafts: unknown): unknown {
  if (!Array.isArray(drafts)) return drafts;
  return (drafts as DeclarationDraft[]).map((draft) => {
    // Values belong to enums only (a type changed away from enum leaves them behind in the form).
    const given = draft.validation ?? {};
    const rule = Object.fromEntries(
      Object.entries({ ...given, ...(given.values !== undefined && { values: enumValues(given.values) }) }).filter(
        ([key, value]) => !isEmpty(value) && !(Array.isArray(value) && value.length === 0) && (key !== 'values' || draft.type === 'enum'),
      ),
    );
    const { validation: _validation, default: fallback, ...rest } = draft;
    return {
      ...rest,
      description: draft.description ?? '',
      default: isEmpty(fallback) ? null : fallback,
      ...(Object.keys(rule).length > 0 && { validation: rule }),
    };
  });
}
