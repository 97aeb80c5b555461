import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import { OBJECT_TYPES, type ObjectTypeDef, type RelationField, type TypeName } from './model.js';

/**
 * What to load for one object type at one level of a query: the columns behind the requested
 * fields and, per requested relation, the plan one level down. Built from the query document
 * (aliases, fragments, inline fragments and @skip/@include resolved), so only what was asked for is
 * read (seed rules 1 and 2).
 */
export interface LoadPlan {
  readonly type: ObjectTypeDef;
  /** Stored columns the objects are presented from (and the ids that relations and visibility checks need). */
  readonly columns: ReadonlySet<string>;
  /**
   * Foreign keys of the requested to-one relations: statements join on them but never return them,
   * since a to-one relation is read by that join (or answers null when its kind is not readable).
   */
  readonly foreignKeys: ReadonlySet<string>;
  /** Requested scalar fields (column and computed), by GraphQL field name. */
  readonly fields: readonly string[];
  /** Requested access fields (`myPermissions`, `availableActions`), by GraphQL field name. */
  readonly access: readonly string[];
  /** Requested relations by field name (aliases of one relation share one plan: the union of their selections). */
  readonly relations: ReadonlyMap<string, { readonly field: RelationField; readonly plan: LoadPlan }>;
}

interface Walk {
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly variables: Readonly<Record<string, unknown>>;
}

function included(node: FieldNode | SelectionSetNode['selections'][number], walk: Walk): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, walk.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, walk.variables)?.if !== false;
}

/** Field nodes of a selection set by field name (not alias), fragments expanded. */
function collectFields(
  selectionSet: SelectionSetNode | undefined,
  walk: Walk,
  into = new Map<string, FieldNode[]>(),
): Map<string, FieldNode[]> {
  for (const selection of selectionSet?.selections ?? []) {
    if (!included(selection, walk)) continue;
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      into.set(name, [...(into.get(name) ?? []), selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      // Every type here is a concrete object type, so a fragment always applies to its own type.
      collectFields(selection.selectionSet, walk, into);
    } else {
      collectFields(walk.fragments[selection.name.value]?.selectionSet, walk, into);
    }
  }
  return into;
}

function planFor(typeName: TypeName, nodes: readonly FieldNode[], walk: Walk): LoadPlan {
  const type = OBJECT_TYPES[typeName];
  const columns = new Set<string>();
  const foreignKeys = new Set<string>();
  const fields: string[] = [];
  const access: string[] = [];
  const relations = new Map<string, { field: RelationField; plan: LoadPlan }>();
  const selected = new Map<string, FieldNode[]>();
  for (const node of nodes) collectFields(node.selectionSet, walk, selected);
  for (const [name, fieldNodes] of selected) {
    const field = type.fields[name];
    if (!field) continue; // __typename, or a field validation already refused
    switch (field.kind) {
      case 'column':
        columns.add(field.column);
        fields.push(name);
        // Restricted values are shown only to the row's own user without the permission: that needs its id.
        if (field.restricted) columns.add('id');
        break;
      case 'computed':
        for (const c of field.columns) columns.add(c);
        fields.push(name);
        break;
      case 'access':
        columns.add('id');
        access.push(name);
        break;
      case 'toOne':
        foreignKeys.add(field.column);
        relations.set(name, { field, plan: planFor(field.target, fieldNodes, walk) });
        break;
      case 'toMany':
      case 'reverse':
        columns.add('id');
        relations.set(name, { field, plan: planFor(field.target, fieldNodes, walk) });
        break;
    }
  }
  return { type, columns, foreignKeys, fields, access, relations };
}

/** The plan for the object (or list of objects) a root field returns. */
export function planOf(typeName: TypeName, info: GraphQLResolveInfo): LoadPlan {
  return planFor(typeName, info.fieldNodes, { fragments: info.fragments, variables: info.variableValues });
}

/** A plan reached by a relation always has the target's id: rows are matched to parents by it. */
export function withId(plan: LoadPlan): ReadonlySet<string> {
  return plan.columns.has('id') ? plan.columns : new Set(['id', ...plan.columns]);
}
