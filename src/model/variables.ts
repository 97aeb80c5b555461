import { z } from 'zod';

/**
 * What a source code version declares of an input variable, as stored: the vocabulary both the
 * version's declaration (./source-code-version.ts) and the judging of values (./variable-values.ts)
 * read, kept apart so that neither imports the other's module.
 */

/**
 * The value types a declared variable takes (docs/contract.md §2, "Typed variables"): a resource's
 * value must be a JSON string, number, boolean, array or object respectively; an `enum` one a string
 * among the values its validation declares (`validation.values`).
 */
export const VARIABLE_TYPES = ['string', 'number', 'bool', 'list', 'map', 'enum'] as const;

/** A declared variable's value type. */
export type VariableType = (typeof VARIABLE_TYPES)[number];

/**
 * A declared variable's optional rule: `regex` (a string value must match it whole) and a `min` /
 * `max` range — of the value for numbers, of the length for strings, of the entries for lists and
 * maps — with an optional `message` shown instead of the generic one; `values`, the choices of an
 * `enum` variable.
 */
export const variableValidation = z.object({
  regex: z.string().optional(),
  values: z.array(z.string()).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  message: z.string().optional(),
});

/** A declared variable's rule. */
export type VariableValidation = z.infer<typeof variableValidation>;

/** One input variable of an OpenTofu module, as stored (`validation` is absent when it has none). */
export const sourceCodeVariable = z.object({
  name: z.string(),
  // Versions written before types were limited may hold an OpenTofu type expression (`map(string)`):
  // read through variableTypeOf.
  type: z.string(),
  required: z.boolean(),
  default: z.unknown(),
  description: z.string(),
  sensitive: z.boolean(),
  validation: variableValidation.optional(),
});

/** One input variable a source code version declares. */
export type SourceCodeVariable = z.infer<typeof sourceCodeVariable>;
