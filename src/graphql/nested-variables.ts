import { BREAK, Kind, visit, type DocumentNode, type ValueNode } from 'graphql';

/**
 * Whether a document passes a variable inside an argument's object or list literal
 * (`auditLog(filter: {entityId: $id})`). graphql-jit evaluates such a literal when it compiles the
 * document, without the variables, so from the second run on the argument lost them (the JSON
 * filter above came as `{}`: an unfiltered list). Such documents run on graphql-js instead: the
 * execution hook hands Mercurius the document back as "modified", which it never compiles.
 */
export function nestsVariables(document: DocumentNode): boolean {
  let known = CHECKED.get(document);
  if (known === undefined) CHECKED.set(document, (known = findNested(document)));
  return known;
}

const CHECKED = new WeakMap<DocumentNode, boolean>();

function findNested(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Argument(node) {
      if (node.value.kind !== Kind.VARIABLE && holdsVariable(node.value)) {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function holdsVariable(value: ValueNode): boolean {
  switch (value.kind) {
    case Kind.VARIABLE:
      return true;
    case Kind.LIST:
      return value.values.some(holdsVariable);
    case Kind.OBJECT:
      return value.fields.some((field) => holdsVariable(field.value));
    default:
      return false;
  }
}
