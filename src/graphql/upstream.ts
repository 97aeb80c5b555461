import { accessOf } from '../edge/entity-permissions.js';
import { DECLARED_ENTITIES } from '../model/catalog.js';
import { columnOf } from '../model/entity.js';
import { snakeToCamel } from '../read/list-query/filter.js';
import { principalOf, type FieldResolver, type GraphContext } from './context.js';
import { member } from './sdl-doc.js';

/**
 * Root fields in the upstream project's dialect (docs/contract.md, the upstream's dialect), for the
 * clients written against it: `{kind}Actions(id)` per declared kind (`templateActions`,
 * `sourceCodeVersionActions`, …) and `userEntityPermissions(entityName, entityId)`. Both answer what
 * every entity already answers as `availableActions` and `myPermissions`, for one entity by id.
 */

const ACTION_ROOTS = DECLARED_ENTITIES.map((entity) => ({ kind: entity.kind, root: `${snakeToCamel(entity.kind)}Actions` }));

/** Types and root fields of the upstream dialect. */
export const UPSTREAM_SDL = `extend type Query {
${ACTION_ROOTS.map(({ kind, root }) =>
  member(
    `What you may do with the ${kind.replaceAll('_', ' ')} now (its \`availableActions\`); ` +
      'empty when it does not exist or you may not read it.',
    `${root}(id: UUID!): [String!]!`,
  ),
).join('')}${member(
  'Your levels on one entity, weakest first (its `myPermissions`); `entityName` is its kind (`sourceCode` or `source_code`). ' +
    'Empty when it does not exist or you may not read it.',
  'userEntityPermissions(entityName: String!, entityId: UUID!): [String!]!',
)}}
`;

/** The caller's access to one entity of `kind`, or undefined when it does not exist or they may not read it. */
const accessTo = async (context: GraphContext, kind: string, id: string) =>
  (await accessOf({ db: context.services.db, approvalFlow: context.services.config.APPROVAL_FLOW }, principalOf(context), kind, [id])).get(
    id,
  );

/** The resolvers of UPSTREAM_SDL. */
export const upstreamResolvers: { Query: Record<string, FieldResolver> } = {
  Query: {
    ...Object.fromEntries(
      ACTION_ROOTS.map(({ kind, root }): [string, FieldResolver] => [
        root,
        async (_root, args, context) => (await accessTo(context, kind, String(args.id)))?.availableActions ?? [],
      ]),
    ),
    userEntityPermissions: async (_root, args, context) =>
      (await accessTo(context, columnOf(String(args.entityName)), String(args.entityId)))?.myPermissions ?? [],
  },
};
