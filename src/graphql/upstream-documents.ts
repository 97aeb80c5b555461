import { Kind, parse, print, visit, type DocumentNode, type TypeNode } from 'graphql';
import { lowerFirst, MUTATION_ENTITIES } from './mutations.js';

/**
 * The upstream project's action mutation (docs/contract.md §12): it sends
 * `{kind}Action(id: $id, input: $input)` with `$input: {Kind}ActionInput!` holding `{action}`, where
 * this API takes `(id, action: {Kind}Action, input: JSON)`. GraphQL accepts a variable only where
 * the argument has the variable's very type, so the two cannot both validate against one schema:
 * such a document is translated before it is parsed — the variable's type becomes `JSON` — and the
 * resolver then takes the action from `input.action` (`actionOf` in ./mutations.ts). Its UI also
 * selects fields of `resourceTree`/`templateTree`, which answer JSON here: the selection is dropped
 * and the whole tree answers, its root's members in the upstream's shape included; and its user form
 * sends `updateUser(id, body:)`, here `input:`. Nothing else of a document changes.
 */

/** `{Kind}ActionInput` by the action field it belongs to (`resourceAction` → `ResourceActionInput`). */
const INPUT_TYPE_OF_FIELD = new Map(MUTATION_ENTITIES.map((entity) => [`${lowerFirst(entity.type)}Action`, `${entity.type}ActionInput`]));

const namedTypeOf = (type: TypeNode): string => (type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type));

const withNamedType = (type: TypeNode, name: string): TypeNode =>
  type.kind === Kind.NAMED_TYPE
    ? { ...type, name: { ...type.name, value: name } }
    : ({ ...type, type: withNamedType(type.type, name) } as TypeNode);

/** The tree roots, which answer JSON here and the upstream's UI selects fields of. */
const TREE_FIELDS = new Set(['resourceTree', 'templateTree']);

/**
 * Whether a document may need translating: a cheap look at the text before any parse (it runs before
 * the size bound and sign-in, so every repetition is bounded and the look stays linear in the text).
 */
export const mayBeUpstreamDocument = (source: string): boolean =>
  source.includes('ActionInput') ||
  /Tree\s{0,64}\([^)]{0,1024}\)\s{0,64}\{/.test(source) ||
  /updateUser\s{0,64}\([^)]{0,1024}\bbody\s{0,64}:/.test(source);

/**
 * The document with the upstream's action input variables typed as this API's `JSON`, the
 * selections it makes on the JSON trees dropped (a tree answers whole, the upstream's members
 * included) and `updateUser`'s `body` named `input`; the source itself when none of them occurs.
 */
export function translateUpstreamDocument(source: string): string {
  if (!mayBeUpstreamDocument(source)) return source;
  let document: DocumentNode;
  try {
    document = parse(source, { noLocation: true });
  } catch {
    return source; // the ordinary path reports the syntax error
  }
  // The variables each action field takes as `input`, with the input type the upstream gives them.
  const wanted = new Map<string, string>();
  visit(document, {
    Field(node) {
      const inputType = INPUT_TYPE_OF_FIELD.get(node.name.value);
      const input = node.arguments?.find((argument) => argument.name.value === 'input');
      if (inputType && input?.value.kind === Kind.VARIABLE) wanted.set(input.value.name.value, inputType);
    },
  });
  const translated = visit(document, {
    Field(node) {
      if (TREE_FIELDS.has(node.name.value) && node.selectionSet) return { ...node, selectionSet: undefined };
      // Its user form sends the update as `body`: this API's argument is `input`.
      const args = node.arguments ?? [];
      if (node.name.value !== 'updateUser' || args.some((a) => a.name.value === 'input')) return undefined;
      if (!args.some((a) => a.name.value === 'body')) return undefined;
      return { ...node, arguments: args.map((a) => (a.name.value === 'body' ? { ...a, name: { ...a.name, value: 'input' } } : a)) };
    },
    VariableDefinition(node) {
      if (wanted.get(node.variable.name.value) !== namedTypeOf(node.type)) return undefined;
      return { ...node, type: withNamedType(node.type, 'JSON') };
    },
  });
  // visit answers the very document when nothing was replaced.
  return translated === document ? source : print(translated);
}
