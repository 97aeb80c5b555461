import { favoriteWrites } from '../edge/writes/favorites.js';
import { listFavorites } from '../read/favorites.js';
import { principalOf, type FieldResolver } from './context.js';
import { doc, member } from './sdl-doc.js';

/** Favorites (docs/contract.md §2), as GraphQL answers them; every declared type answers `isFavorite` too. */
export const FAVORITES_SDL = `${doc('One of your favorites.')}type Favorite {
${doc('The kind, as permissions name it: `template`, `resource`, …', '  ')}  entityType: String!
${doc('Its REST collection: `templates`, `resources`, …', '  ')}  plural: String!
  entityId: UUID!
${doc('Its name, or its identifier for source codes and their versions.', '  ')}  name: String!
${doc('When you starred it.', '  ')}  createdAt: DateTime!
${doc('The entity in the REST API.', '  ')}  href: String!
${doc("The entity's page in the web UI.", '  ')}  link: String!
}
extend type Query {
${member('Your favorites, newest first: only entities that still exist and that you may still read.', 'favorites: [Favorite!]!')}}
extend type Mutation {
${member(
  'Stars an entity you may read (again: nothing changes); `entityType` is the kind (`template`, …, `team`, `webhook`). True.',
  'addFavorite(entityType: String!, id: UUID!): Boolean!',
)}${member('Unstars an entity (not starred: nothing changes). True.', 'removeFavorite(entityType: String!, id: UUID!): Boolean!')}}
`;

/** The resolvers of FAVORITES_SDL. */
export const favoriteResolvers: { Query: Record<string, FieldResolver>; Mutation: Record<string, FieldResolver> } = {
  Query: {
    favorites: (_root, _args, context) => listFavorites(context.services.db, principalOf(context)),
  },
  Mutation: {
    addFavorite: async (_root, args, context) => {
      principalOf(context);
      await favoriteWrites(context.services).add({ request: context.request }, args, 'arguments');
      return true;
    },
    removeFavorite: async (_root, args, context) => {
      principalOf(context);
      await favoriteWrites(context.services).remove({ request: context.request }, args, 'arguments');
      return true;
    },
  },
};
