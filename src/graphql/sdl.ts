import { OBJECT_TYPES, type FieldDef, type ObjectTypeDef } from './model.js';
import { ROOT_ENTITIES } from './roots.js';

/**
 * The schema document, generated from the model so that every type and field carries the
 * description GraphiQL's docs explorer shows.
 */

const doc = (text: string, indent = ''): string => `${indent}"""\n${indent}${text.replaceAll('"""', '\\"""')}\n${indent}"""\n`;

function fieldType(field: FieldDef): string {
  switch (field.kind) {
    case 'column':
    case 'computed':
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
  doc('Key-value pairs to filter by, as on REST: `{"name__like": "db", "state": ["provisioned", "destroy"]}`; relation keys filter by id (`templateId`).', '    '),
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
        ? 'One user by id; null when it does not exist. Any signed-in caller may look a user up (names are public inside the service); restricted fields need `user:read` or being that user.'
        : `One ${type} by id; null when it does not exist or the caller may not read it.`;
    if (root.single) parts.push(`${doc(single, '  ')}  ${root.single}(id: UUID): ${type}\n`);
    parts.push(`${doc(`A page of ${root.noun}, filtered, sorted and paginated like the REST list.`, '  ')}  ${root.plural}(\n${LIST_ARGS}  ): [${type}!]\n`);
    if (root.count) parts.push(`${doc(`How many ${root.noun} match the filter (on all pages).`, '  ')}  ${root.plural}Count(filter: JSON): Int\n`);
  }
  parts.push(`${doc('The signed-in caller.', '  ')}  me: User!\n`);
  parts.push(`${doc('The enabled ways to sign in, as the login page shows them. Needs no token.', '  ')}  enabledAuthProviders: [LoginOption!]!\n`);
  return `${doc('Reads. Every field needs `Authorization: Bearer <token>`, except `enabledAuthProviders` and introspection.')}type Query {\n${parts.join('')}}\n`;
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
${doc('Writes (everything else is written through REST).')}type Mutation {
${doc("Signs a service account in with its identifier and password and returns a bearer token. Needs no token; rate-limited; audited. Replaces the deprecated `POST /api/auth/service_account/token`.", '  ')}  serviceAccountToken(identifier: String!, password: String!): ServiceAccountToken!
}
`;

/** The whole schema document. */
export function buildSchemaDocument(): string {
  return [SCALARS, ...Object.values(OBJECT_TYPES).map(objectType), EXTRA_TYPES, rootQueries()].join('\n');
}
