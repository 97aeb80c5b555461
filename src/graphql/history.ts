import { z } from 'zod';
import { entityRevisionDiff, isNotThen } from '../edge/history.js';
import { AppError } from '../errors.js';
import { DECLARED_ENTITIES, declarationOf } from '../model/catalog.js';
import { ensureAllowed, type PermissionResource } from '../model/permissions.js';
import { revisionInput } from '../read/as-of.js';
import { canonicalUuid, parseInput } from '../validation.js';
import { principalOf, type FieldResolver } from './context.js';
import { doc, member } from './sdl-doc.js';

/** The diff of two revisions (docs/contract.md §2, "History you can query"), as GraphQL answers it. */
export const HISTORY_SDL = `${doc('One field that differs between two revisions.')}type FieldChange {
${doc('The field, or `field.key` one level into an object (`configuration.awsRegion`).', '  ')}  field: String!
${doc('Its value in the earlier revision (null when it had none).', '  ')}  before: JSON
${doc('Its value in the later revision (null when it has none).', '  ')}  after: JSON
}
${doc('Two revisions of one entity and what differs between them.')}type RevisionDiff {
${doc('The entity at `from`, in the REST view’s shape.', '  ')}  from: JSON!
${doc('The entity at `to`, in the REST view’s shape.', '  ')}  to: JSON!
${doc('The fields that differ, sorted by field; write-only values are `********` on both sides.', '  ')}  changes: [FieldChange!]!
}
extend type Query {
${member(
  'Two revisions of an entity and the fields that differ. `entityType` is the kind (`template`, `source_code`, …, `team`, ' +
    '`webhook`); who may read the entity now may compare its revisions. Null when it does not exist or may not be read; an error ' +
    'names a revision it never had.',
  'revisionDiff(entityType: String!, id: UUID!, from: Int!, to: Int!): RevisionDiff',
)}}
`;

const KINDS = DECLARED_ENTITIES.map((entity) => entity.kind);

const diffArgs = z.object({
  entityType: z.enum(KINDS as [string, ...string[]], { message: `must be one of ${KINDS.join(', ')}` }),
  id: canonicalUuid,
  from: revisionInput,
  to: revisionInput,
});

/** The resolvers of HISTORY_SDL. */
export const historyResolvers: { Query: Record<string, FieldResolver> } = {
  Query: {
    revisionDiff: async (_root, args, context) => {
      const principal = principalOf(context);
      const { entityType, id, from, to } = parseInput(diffArgs, args, 'arguments');
      const entity = declarationOf(entityType);
      if (!entity) return null;
      ensureAllowed(principal.permissions, `${entity.kind as PermissionResource}:read`);
      try {
        return await entityRevisionDiff(context.services, principal, entity, id, from, to);
      } catch (error) {
        // An entity the caller may not read answers like one that does not exist; a revision it never had is an error.
        if (error instanceof AppError && error.code === 'NOT_FOUND' && !isNotThen(error)) return null;
        throw error;
      }
    },
  },
};
