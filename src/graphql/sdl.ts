import { OBJECT_TYPES, type FieldDef, type ObjectTypeDef } from './model.js';
import { declarationOf } from '../model/catalog.js';
import { HISTORY_SDL } from './history.js';
import { FAVORITES_SDL } from './favorites.js';
import { UPSTREAM_SDL } from './upstream.js';
import { TREES_SDL } from './trees.js';
import { actionEnumOf, lowerFirst, MUTATION_ENTITIES, type MutationEntity } from './mutations.js';
import { ROOT_ENTITIES } from './roots.js';
import { RUN_LOG_SDL } from './run-logs.js';
import { ACCESS_SDL } from './access.js';
import { SEARCH_SDL } from './search.js';
import { SUBSCRIPTION_SDL } from './subscriptions.js';
import { doc, member } from './sdl-doc.js';

/**
 * The schema document, generated from the model so that every type and field carries the
 * description GraphiQL's docs explorer shows.
 */

function fieldType(field: FieldDef): string {
  switch (field.kind) {
    case 'column':
    case 'computed':
    case 'access':
      return field.type;
    case 'toOne':
      // Nullable even when required on write: the caller may not be allowed to read the target kind.
      return field.target;
    case 'toMany':
    case 'reverse':
      return `[${field.target}!]!`;
  }
}

function objectType(type: ObjectTypeDef): string {
  const fields = Object.entries(type.fields).map(([name, field]) => `${doc(field.description, '  ')}  ${name}: ${fieldType(field)}`);
  return `${doc(type.description)}type ${type.name} {\n${fields.join('\n')}\n}\n`;
}

const LIST_ARGS = [
  doc(
    'Key-value pairs to filter by, as on REST: `{"name__like": "db", "state": ["provisioned", "destroy"]}`; relation keys filter by id ' +
      '(`templateId`).',
    '    ',
  ),
  '    filter: JSON\n',
  doc('`[field, direction]`, e.g. `["createdAt", "DESC"]` (the default); ties are broken by id.', '    '),
  '    sort: [String!]\n',
  doc('`[offset, limit]`, default `[0, 100]`; the limit is capped by MAX_PAGE_SIZE.', '    '),
  '    range: [Int!]\n',
].join('');

function rootQueries(): string {
  const parts: string[] = [];
  for (const root of ROOT_ENTITIES) {
    const type = root.type;
    const single =
      type === 'User'
        ? 'One user by id; null when it does not exist. Any signed-in caller may look a user up (names are public inside the service); ' +
          'restricted fields need `user:read` or being that user.'
        : `One ${type} by id; null when it does not exist or the caller may not read it.`;
    const declared = OBJECT_TYPES[type].kind !== undefined && declarationOf(OBJECT_TYPES[type].kind) !== undefined;
    if (root.single && declared) {
      const asOf =
        `${single} With \`at\` (a log position, as \`X-Position\` gives it, or an ISO-8601 time with a zone) or \`revision\`: the ` +
        'entity as it was then, folded from its events (its own fields and references as then; related entities as now); null ' +
        'when it did not exist then. Who may read it now may read its past.';
      parts.push(member(asOf, `${root.single}(id: UUID, at: String, revision: Int): ${type}`));
    } else if (root.single) parts.push(member(single, `${root.single}(id: UUID): ${type}`));
    parts.push(
      member(`A page of ${root.noun}, filtered, sorted and paginated like the REST list.`, `${root.plural}(\n${LIST_ARGS}  ): [${type}!]`),
    );
    if (root.count) parts.push(member(`How many ${root.noun} match the filter (on all pages).`, `${root.plural}Count(filter: JSON): Int`));
  }
  parts.push(member('The signed-in caller.', 'me: User!'));
  parts.push(member('The enabled ways to sign in, as the login page shows them. Needs no token.', 'enabledAuthProviders: [LoginOption!]!'));
  const description = 'Reads. Every field needs `Authorization: Bearer <token>`, except `enabledAuthProviders` and introspection.';
  return `${doc(description)}type Query {\n${parts.join('')}}\n`;
}

const SCALARS = `${doc('A UUID in its canonical text form.')}scalar UUID
${doc('Any JSON value.')}scalar JSON
${doc('An ISO-8601 instant, e.g. `2024-01-01T00:00:00.000Z`.')}scalar DateTime
`;

const EXTRA_TYPES = `${doc('An enabled sign-in option.')}type LoginOption {
${doc('The provider key.', '  ')}  key: String!
${doc('The provider type.', '  ')}  type: String!
${doc('The display name.', '  ')}  name: String!
${doc('Where the login starts (relative to the base URL); null for providers without an interactive login.', '  ')}  loginUrl: String
}
${doc('A bearer token for a service account.')}type ServiceAccountToken {
${doc('The access token: send it as `Authorization: Bearer <token>`.', '  ')}  token: String!
${doc('When the token stops working.', '  ')}  expiresAt: DateTime!
}
${doc('A new personal access token: the only answer that ever shows its secret.')}type PersonalAccessTokenSecret {
${doc('The token id (revoke it by this id).', '  ')}  id: UUID!
${doc('Its name.', '  ')}  name: String!
${doc('The secret: send it as `Authorization: Bearer <token>`. Shown once.', '  ')}  token: String!
${doc('When it stops working.', '  ')}  expiresAt: DateTime!
${doc('When it was created.', '  ')}  createdAt: DateTime!
}
${doc('A new personal access token.')}input PersonalAccessTokenCreateInput {
${doc('A name to recognise it by (1-100 characters). Required.', '  ')}  name: String
${doc("Days until it expires (at most the provider's `maxLifetimeDays`). Required.", '  ')}  expiresInDays: Int
}
`;

function inputType(name: string, description: string, fields: MutationEntity['createInput']): string {
  const lines = Object.entries(fields).map(([field, input]) => `${doc(input.description, '  ')}  ${field}: ${input.type}`);
  return `${doc(description)}input ${name} {\n${lines.join('\n')}\n}\n`;
}

/** Per kind with writes: its inputs, its action enum and its mutations (./mutations.ts). */
function mutationDefinitions(): { types: string[]; fields: string[] } {
  const types: string[] = [];
  const fields: string[] = [];
  for (const entity of MUTATION_ENTITIES) {
    const { type, noun } = entity;
    types.push(inputType(`${type}CreateInput`, `A new ${noun}, as the REST POST body (the same rules and errors).`, entity.createInput));
    types.push(
      inputType(`${type}UpdateInput`, `Changes to a ${noun}, as the REST PATCH body: only the fields given change.`, entity.updateInput),
    );
    const actions = entity.actions.map((action) => `  ${action}`).join('\n');
    types.push(`${doc(`What can be done to a ${noun} (REST: POST .../actions/{action}).`)}enum ${actionEnumOf(entity)} {\n${actions}\n}\n`);
    fields.push(
      member(`Creates a ${noun}; answers it as the read side then shows it.`, `create${type}(input: ${type}CreateInput!): ${type}!`),
    );
    fields.push(
      member(
        `Changes a ${noun}. \`revision\` is If-Match: the write is refused (PRECONDITION_FAILED) unless the ${noun} is still at that ` +
          'revision.',
        `update${type}(id: UUID!, input: ${type}UpdateInput!, revision: Int): ${type}!`,
      ),
    );
    if (entity.deletable) {
      const description = `Deletes a ${noun} (lifecycle kinds: asks for its deletion, as REST's DELETE). True once done.`;
      fields.push(member(description, `delete${type}(id: UUID!): Boolean!`));
    }
    const reason = entity.actions.includes('approve')
      ? ', `approve` and `reject` an optional `input: {reason}` (kept in the event, shown in the history)'
      : '';
    fields.push(
      member(
        `Takes an action on a ${noun}. \`succeed\` takes \`input: {outputs}\`, \`fail\` \`input: {error}\`${reason}. The action ` +
          'is `action`, or `input.action` when `action` is left out (as the upstream project sends it).',
        `${lowerFirst(type)}Action(id: UUID!, action: ${actionEnumOf(entity)}, input: JSON): ${type}!`,
      ),
    );
  }
  fields.push(
    member(
      'Creates a personal access token for the caller (not with a personal access token). Its secret is in this answer only.',
      'createPersonalAccessToken(input: PersonalAccessTokenCreateInput!): PersonalAccessTokenSecret!',
    ),
  );
  fields.push(
    member(
      "Revokes one of the caller's personal access tokens (any, for `user:admin`). True once done.",
      'revokePersonalAccessToken(id: UUID!): Boolean!',
    ),
  );
  return { types, fields };
}

function mutationType(fields: readonly string[]): string {
  const token = member(
    'Signs a service account in with its identifier and password and returns a bearer token. Needs no token; rate-limited; audited. ' +
      'Replaces the deprecated `POST /api/auth/service_account/token`.',
    'serviceAccountToken(identifier: String!, password: String!): ServiceAccountToken!',
  );
  const description =
    'Writes: every REST write, through the same rules (validation, permissions, uniqueness, If-Match, audit), answered once the read ' +
    'side shows it.';
  return `${doc(description)}type Mutation {\n${token}${fields.join('')}}\n`;
}

/** The whole schema document. */
export function buildSchemaDocument(): string {
  const mutations = mutationDefinitions();
  return [
    SCALARS,
    ...Object.values(OBJECT_TYPES).map(objectType),
    EXTRA_TYPES,
    ...mutations.types,
    mutationType(mutations.fields),
    SUBSCRIPTION_SDL,
    rootQueries(),
    RUN_LOG_SDL,
    ACCESS_SDL,
    SEARCH_SDL,
    HISTORY_SDL,
    FAVORITES_SDL,
    TREES_SDL,
    UPSTREAM_SDL,
  ].join('\n');
}
