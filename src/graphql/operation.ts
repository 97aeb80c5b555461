import { Kind, OperationTypeNode, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/** Root fields that need no token (docs/contract.md §4): introspection, the login page's list and the token mutation. */
const PUBLIC_ROOT_FIELDS = new Set(['__schema', '__type', '__typename', 'enabledAuthProviders', 'serviceAccountToken']);

/** The fragments of a document, by name. */
export function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  return fragments;
}

function rootFieldNames(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen: Set<string>,
  into: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) into.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) rootFieldNames(selection.selectionSet, fragments, seen, into);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments[selection.name.value];
      if (fragment) rootFieldNames(fragment.selectionSet, fragments, seen, into);
    }
  }
}

/**
 * Whether every operation of the document only touches public root fields. Every operation counts,
 * not only the one picked by `operationName`: a document mixing public and private operations needs
 * a token, which errs on the safe side. @skip/@include are ignored for the same reason.
 */
export function isPublicDocument(document: DocumentNode): boolean {
  const fragments = fragmentsOf(document);
  const names = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) rootFieldNames(definition.selectionSet, fragments, new Set(), names);
  }
  return [...names].every((name) => PUBLIC_ROOT_FIELDS.has(name));
}

/** Introspection's root fields. */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/** Whether the document only asks introspection questions (queries of `__schema`, `__type`, `__typename`). */
export function isIntrospectionDocument(document: DocumentNode): boolean {
  const fragments = fragmentsOf(document);
  const names = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (definition.operation !== OperationTypeNode.QUERY) return false;
    rootFieldNames(definition.selectionSet, fragments, new Set(), names);
  }
  return names.size > 0 && [...names].every((name) => INTROSPECTION_FIELDS.has(name));
}
