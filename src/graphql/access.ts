import { entityPermissions } from '../edge/entity-permissions.js';
import { accessWrites } from '../edge/writes/access.js';
import { AppError } from '../errors.js';
import { principalOf, type FieldResolver } from './context.js';
import { doc, member } from './sdl-doc.js';

/**
 * Permissions per entity over GraphQL (docs/contract.md §6): the permissions view of one entity
 * (`entityPermissions`, as REST's `GET …/{id}/permissions`) and its grants, on the same operations
 * REST runs. Every entity also answers `myPermissions` and `availableActions` (./model.ts).
 */

/** Types and root fields of permissions per entity. */
export const ACCESS_SDL = `${doc('A grant of a level on one entity to a user or a team.')}type EntityGrant {
${doc('`user` or `team`.', '  ')}  subjectType: String!
${doc("The user's or team's id.", '  ')}  subjectId: UUID!
${doc("The team's name or the user's display name.", '  ')}  subjectName: String
${doc('`read`, `write` or `admin`.', '  ')}  level: String!
${doc('When it was given.', '  ')}  grantedAt: DateTime!
}
${doc('The team that owns an entity.')}type EntityOwner {
${doc("The team's id.", '  ')}  id: UUID!
${doc("The team's name.", '  ')}  name: String
}
${doc('What the caller may do with one entity, and who else may.')}type EntityPermissions {
${doc('The entity kind, e.g. `template`.', '  ')}  entityType: String!
${doc("The entity's id.", '  ')}  entityId: UUID!
${doc('Your levels on it, weakest first.', '  ')}  myPermissions: [String!]!
${doc('What you may do with it now.', '  ')}  availableActions: [String!]!
${doc('The team that owns it; null when none does.', '  ')}  owner: EntityOwner
${doc('Your role in the owning team (in the team itself, for a team): `member`, `lead` or null.', '  ')}  myTeamRole: String
${doc('Its grants.', '  ')}  grants: [EntityGrant!]!
}
extend type Query {
${member(
  'The permissions of one entity (`entityType` as `template`, `secret`, `team`, …); null when it does not exist or you may not read it.',
  'entityPermissions(entityType: String!, id: UUID!): EntityPermissions',
)}}
extend type Mutation {
${member(
  'Gives a user or a team a level on one entity (replacing the level it had); needs `admin` on the entity.',
  'grantEntityPermission(entityType: String!, id: UUID!, subjectType: String!, subjectId: UUID!, level: String!): EntityPermissions!',
)}${member(
  "Takes a user's or a team's grant on one entity away; needs `admin` on the entity.",
  'revokeEntityPermission(entityType: String!, id: UUID!, subjectType: String!, subjectId: UUID!): EntityPermissions!',
)}}
`;

/** The resolvers of ACCESS_SDL. */
export const accessResolvers: { Query: Record<string, FieldResolver>; Mutation: Record<string, FieldResolver> } = {
  Query: {
    entityPermissions: async (_root, args, context) => {
      try {
        return await entityPermissions(context.services, principalOf(context), String(args.entityType), String(args.id));
      } catch (error) {
        // Not readable answers like absent, as every single query does.
        if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },
  },
  Mutation: {
    grantEntityPermission: async (_root, args, context) => {
      const principal = principalOf(context);
      const { entityType, id, ...grant } = args as {
        entityType: string;
        id: string;
        subjectType: unknown;
        subjectId: unknown;
        level: unknown;
      };
      await accessWrites(context.services).grant({ request: context.request }, entityType, id, grant);
      return entityPermissions(context.services, principal, entityType, id);
    },
    revokeEntityPermission: async (_root, args, context) => {
      const principal = principalOf(context);
      const { entityType, id, subjectType, subjectId } = args as {
        entityType: string;
        id: string;
        subjectType: unknown;
        subjectId: unknown;
      };
      await accessWrites(context.services).revoke({ request: context.request }, entityType, id, { subjectType, subjectId });
      return entityPermissions(context.services, principal, entityType, id);
    },
  },
};
