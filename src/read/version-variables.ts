import { sql, type RawBuilder } from 'kysely';
import type { SourceCodeVariable } from '../model/variables.js';
import type { Db } from '../storage/kysely.js';

/**
 * A version's input variables as a request form starts from them (docs/api/rest.md, "Relationships";
 * the upstream project's `GET /source_code_versions/{id}/variables`): each declared
 * variable with the value the form would show — its default, or the output of the same name that
 * one of the named parent resources reported (the first parent named wins). An output its parent's
 * version declares sensitive is never copied: the form keeps the default and the caller types it.
 */
export interface StartingVariable {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly required: boolean;
  readonly sensitive: boolean;
  /** An `enum` variable's choices; empty for other types. */
  readonly options: readonly string[];
  /** Its place in the version's declaration. */
  readonly index: number;
  readonly value: unknown;
  /** The parent resource whose output gave `value`, or null when it is the default. */
  readonly valueFrom: string | null;
  readonly validation?: SourceCodeVariable['validation'];
}

/** A parent resource as the variables see it: what it reported, and which of its outputs are sensitive. */
interface ParentRow {
  readonly id: string;
  readonly outputs: Record<string, unknown> | null;
  readonly sensitive_outputs: string[] | null;
}

/**
 * The live resources among `ids` that pass `readable` (the caller's rule over `r`), with their
 * outputs and the names of the outputs their version declares sensitive.
 */
export async function parentOutputs(db: Db, ids: readonly string[], readable: RawBuilder<boolean> | undefined): Promise<ParentRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<ParentRow>`SELECT r.id, r.outputs,
      (SELECT array_agg(o->>'name') FROM jsonb_array_elements(v.outputs) o WHERE (o->>'sensitive')::boolean) AS sensitive_outputs
    FROM resources r LEFT JOIN source_code_versions v ON v.id = r.source_code_version_id
    WHERE r.deleted_at IS NULL AND r.id = ANY(${[...ids]}::uuid[]) AND ${readable ?? sql<boolean>`true`}`.execute(db);
  return rows;
}

/** The declared variables in their order, each with its starting value (`parents` in the order named). */
export function startingVariables(declared: readonly SourceCodeVariable[], parents: readonly ParentRow[]): StartingVariable[] {
  return declared.map((variable, index) => {
    const from = parents.find(
      (parent) =>
        parent.outputs !== null && Object.hasOwn(parent.outputs, variable.name) && !parent.sensitive_outputs?.includes(variable.name),
    );
    return {
      name: variable.name,
      type: variable.type,
      description: variable.description,
      required: variable.required,
      sensitive: variable.sensitive,
      options: variable.type === 'enum' ? (variable.validation?.values ?? []) : [],
      index,
      value: from ? from.outputs?.[variable.name] : (variable.default ?? null),
      valueFrom: from?.id ?? null,
      ...(variable.validation && { validation: variable.validation }),
    };
  });
}
