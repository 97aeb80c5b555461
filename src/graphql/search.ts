import { parseSearch, toSearchHitView } from '../edge/search.js';
import { searchCatalog } from '../read/search.js';
import { principalOf, type FieldResolver } from './context.js';
import { doc, member } from './sdl-doc.js';

/** The search across kinds (src/read/search.ts), as GraphQL answers it. */
export const SEARCH_SDL = `${doc('One entity a search found, and where to open it.')}type SearchHit {
${doc('The kind, as permissions name it: `template`, `source_code`, `team`, …', '  ')}  kind: String!
${doc('Its REST collection: `templates`, `source_codes`, …', '  ')}  plural: String!
  id: UUID!
${doc('Its name, or its identifier for kinds without a name (source codes and their versions).', '  ')}  name: String!
  description: String!
  labels: [String!]!
${doc(
  'Where the text matched, best first: `id`, `name` (all of it), `name_prefix`, `name_contains`, `field` (an identifier or ' +
    'another searched field), `label`, `description`.',
  '  ',
)}  match: String!
${doc('The rank of `match` (100 for an id, down to 20 for a description): hits come best first, then by name.', '  ')}  score: Int!
${doc('The entity in the REST API.', '  ')}  href: String!
${doc("The entity's page in the web UI.", '  ')}  link: String!
}
extend type Query {
${member(
  'The entities of every kind you may read (or of `kinds`) whose name, identifier, searched fields, labels, description or id hold ' +
    '`q` (case-insensitive), best first; `range` is `[offset, limit]`, default `[0, 20]`.',
  'search(q: String!, kinds: [String!], range: [Int!]): [SearchHit!]!',
)}${member('How many entities `search` finds for `q` and `kinds`, on all pages.', 'searchCount(q: String!, kinds: [String!]): Int!')}}
`;

/** The resolvers of SEARCH_SDL. */
export const searchResolvers: { Query: Record<string, FieldResolver> } = {
  Query: {
    search: async (_root, args, context) => {
      const principal = principalOf(context);
      const query = parseSearch({ q: args.q, kinds: args.kinds, range: args.range }, context.services.config.MAX_PAGE_SIZE);
      const { rows } = await searchCatalog(context.services.db, principal, query);
      return rows.map(toSearchHitView);
    },
    searchCount: async (_root, args, context) => {
      const principal = principalOf(context);
      const query = parseSearch({ q: args.q, kinds: args.kinds, range: [0, 0] }, context.services.config.MAX_PAGE_SIZE);
      return (await searchCatalog(context.services.db, principal, query)).total;
    },
  },
};
