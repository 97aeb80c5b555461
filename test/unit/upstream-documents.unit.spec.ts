import { parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { translateUpstreamDocument } from '../../src/graphql/upstream-documents.js';

/** The document as the printer writes it, to compare shapes rather than spacing. */
const normal = (source: string): string => print(parse(source));

describe("the upstream's documents, translated before parsing", () => {
  it('types an action input variable as JSON, and only where the action field takes it as input', () => {
    const upstream = 'mutation A($id: UUID!, $input: ResourceActionInput!) { resourceAction(id: $id, input: $input) { id status } }';
    expect(translateUpstreamDocument(upstream)).toBe(
      normal('mutation A($id: UUID!, $input: JSON!) { resourceAction(id: $id, input: $input) { id status } }'),
    );
    // Another kind's input type on this field is left for validation to refuse.
    const mismatched = 'mutation ($id: UUID!, $input: TemplateActionInput!) { resourceAction(id: $id, input: $input) { id } }';
    expect(translateUpstreamDocument(mismatched)).toBe(mismatched);
  });

  it('drops a selection made on a tree, which answers JSON', () => {
    const upstream =
      'query T($id: UUID!, $direction: String!) { templateTree(id: $id, direction: $direction) { id name children { id } } }';
    expect(translateUpstreamDocument(upstream)).toBe(
      normal('query T($id: UUID!, $direction: String!) { templateTree(id: $id, direction: $direction) }'),
    );
  });

  it("names updateUser's body input, as this API does", () => {
    const upstream = 'mutation U($id: UUID!, $body: UserUpdateInput!) { updateUser(id: $id, body: $body) { id } }';
    expect(translateUpstreamDocument(upstream)).toBe(
      normal('mutation U($id: UUID!, $body: UserUpdateInput!) { updateUser(id: $id, input: $body) { id } }'),
    );
  });

  it('hands every other document on as it came, unparsed when nothing in its text can need it', () => {
    const ours = 'mutation ($id: UUID!, $input: JSON) { resourceAction(id: $id, action: approve, input: $input) { id } }';
    expect(translateUpstreamDocument(ours)).toBe(ours);
    const tree = '{ resourceTree(id: "00000000-0000-4000-8000-000000000000", direction: "children") }';
    expect(translateUpstreamDocument(tree)).toBe(tree);
    // A syntax error is the ordinary path's to report.
    const broken = 'mutation ($input: ResourceActionInput!) { resourceAction(';
    expect(translateUpstreamDocument(broken)).toBe(broken);
  });
});
