import type { OpenAPIV3_1 } from 'openapi-types';
import { credentials } from '../../auth/credentials.js';
import { createAuthProviderBody, patchAuthProviderBody } from '../../edge/writes/auth-providers.js';
import { createPersonalAccessTokenBody, DEFAULT_PAT_MAX_LIFETIME_DAYS } from '../../edge/writes/personal-access-tokens.js';
import { createUserBody, patchUserBody, USER_ACTIONS } from '../../edge/writes/users.js';
import { header, jsonBody, jsonResponse, param, problems, schemaOf, type Paths } from './components.js';
import { withVariants } from './catalog-paths.js';
import { entityPaths } from './entity-paths.js';
import { accountViewSchema } from './entity-schemas.js';
import { userEntity } from '../../model/user.js';
import { authProviderEntity } from '../../model/auth-provider.js';
import { personalAccessTokenEntity } from '../../model/personal-access-token.js';
import { ssoPaths } from './sso-paths.js';

type Schema = OpenAPIV3_1.SchemaObject;

const PUBLIC: OpenAPIV3_1.SecurityRequirementObject[] = [];

const tokenSchema: Schema = {
  type: 'object',
  required: ['token', 'expiresAt'],
  properties: { token: { type: 'string', description: 'Bearer JWT.' }, expiresAt: { type: 'string', format: 'date-time' } },
};
const tokenResponse = (description: string): OpenAPIV3_1.ResponseObject =>
  jsonResponse(`${description} Browser sign-ins also set the HttpOnly refresh cookie \`il_refresh\`.`, tokenSchema);
const sameOrigin = 'Cookie-based: a browser `Origin` other than BASE_URL is refused with 403.';

/** `/api/auth/*`: sign-in, refresh, logout, the caller, the login options and the signing keys. */
function authPaths(): Paths {
  const tags = ['Authentication'];
  return {
    '/api/auth/service_account/token': {
      post: {
        tags,
        operationId: 'service_account_token',
        summary: 'Sign in as a service account',
        description: 'Deprecated: use the GraphQL mutation `serviceAccountToken` (same code path). Answers `Deprecation: true`.',
        deprecated: true,
        security: PUBLIC,
        requestBody: jsonBody(schemaOf(credentials)),
        responses: { '200': tokenResponse('An access token.'), ...problems(400, 401, 429, 503) },
      },
    },
    '/api/auth/guest/login': {
      post: {
        tags,
        operationId: 'guest_login',
        summary: 'Sign in as a guest (development only)',
        description: `Needs an enabled \`guest\` provider. ${sameOrigin}`,
        security: PUBLIC,
        responses: { '200': tokenResponse('An access token.'), ...problems(403, 404, 429, 503) },
      },
    },
    '/api/auth/refresh': {
      post: {
        tags,
        operationId: 'refresh',
        summary: 'Rotate the refresh cookie for a new access token',
        description: `Reusing a rotated refresh token ends the session. ${sameOrigin}`,
        security: PUBLIC,
        responses: { '200': tokenResponse('A new access token; the cookie is rotated.'), ...problems(401, 403, 503) },
      },
    },
    '/api/auth/logout': {
      post: {
        tags,
        operationId: 'logout',
        summary: 'End the session (refresh cookie, else the bearer token’s session)',
        description: sameOrigin,
        security: [{}, { bearerAuth: [] }],
        responses: { '204': { description: 'Signed out; the cookie is cleared.' }, ...problems(403, 503) },
      },
    },
    '/api/auth/me': {
      get: {
        tags,
        operationId: 'me',
        summary: 'The caller: user, roles, grants, effective permissions, sign-in method, teams (`[{id, name, role}]`)',
        responses: { '200': jsonResponse('The caller.', { type: 'object', additionalProperties: true }), ...problems(401, 503) },
      },
    },
    '/api/auth/providers': {
      get: {
        tags,
        operationId: 'login_options',
        summary: 'Enabled sign-in providers for the login page',
        security: PUBLIC,
        responses: {
          '200': jsonResponse('Login options.', {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                key: { type: 'string' },
                type: { type: 'string' },
                name: { type: 'string' },
                loginUrl: { type: ['string', 'null'] },
              },
            },
          }),
          ...problems(503),
        },
      },
    },
    '/api/auth/.well-known/jwks.json': {
      get: {
        tags,
        operationId: 'jwks',
        summary: 'Public keys that verify access tokens (JWKS)',
        security: PUBLIC,
        responses: {
          '200': jsonResponse('A JSON Web Key Set.', {
            type: 'object',
            required: ['keys'],
            properties: { keys: { type: 'array', items: { type: 'object' } } },
          }),
        },
      },
    },
  };
}

/** Personal access tokens: create (the secret is shown once), list own, revoke. */
function personalAccessTokenPaths(): Paths {
  const tags = ['Personal access tokens'];
  const view = accountViewSchema(personalAccessTokenEntity);
  const body = schemaOf(
    createPersonalAccessTokenBody(DEFAULT_PAT_MAX_LIFETIME_DAYS),
    '`expiresInDays` is capped by the personal_access_token provider’s `maxLifetimeDays` (default 90).',
  );
  return {
    '/api/personal_access_tokens': {
      get: {
        tags,
        operationId: 'list_personal_access_tokens',
        summary: 'The caller’s tokens (never the secrets)',
        responses: { '200': jsonResponse('Newest first.', { type: 'array', items: view }), ...problems(401, 503) },
      },
      post: {
        tags,
        operationId: 'create_personal_access_token',
        summary: 'Create a token for the caller',
        description: 'The only response that carries the token. A personal access token cannot create others (403).',
        requestBody: jsonBody(body),
        responses: {
          '201': jsonResponse('The token, shown once.', { ...view, properties: { ...view.properties, token: { type: 'string' } } }),
          ...problems(400, 401, 403, 409, 503),
        },
      },
    },
    '/api/personal_access_tokens/{id}': {
      parameters: [param('id')],
      delete: {
        tags,
        operationId: 'revoke_personal_access_token',
        summary: 'Revoke a token (its owner, or a user administrator)',
        responses: { '204': { description: 'Revoked.' }, ...problems(400, 401, 404, 503) },
      },
    },
  };
}

/** The audit trail, filtered to what the caller may read. */
function auditLogPaths(): Paths {
  return {
    '/api/audit_log': {
      get: {
        tags: ['Audit log'],
        operationId: 'list_audit_log',
        summary: 'Audit entries',
        description: '`audit_log:read` reads every entry; anyone else the entries of the catalog kinds they may read.',
        parameters: [param('filter'), param('sort'), param('range')],
        responses: {
          '200': jsonResponse(
            'The page of entries.',
            { type: 'array', items: { type: 'object', additionalProperties: true } },
            { 'Content-Range': header('ContentRange') },
          ),
          ...problems(400, 401, 503),
        },
      },
    },
  };
}

/** An auth provider as GET, POST and PATCH answer it (src/read/auth-providers.ts): the declaration plus its callback URL. */
const authProviderView: Schema = accountViewSchema(authProviderEntity, {
  callbackUrl: { type: ['string', 'null'], description: 'The redirect URL to register at the identity provider (SSO types only).' },
});

/** A user as GET, POST and PATCH answer it (src/http/routes/users.ts `toUserView`): the declaration plus two derived fields. */
const userView: Schema = accountViewSchema(userEntity, {
  name: { type: 'string', description: 'The display name, else the identifier.' },
  permissions: { type: 'array', items: { type: 'string' }, description: 'What the roles and grants allow, spelled out.' },
});

/** Authentication, providers, users, tokens and the audit log (docs/contract.md §5, §7). */
export function identityPaths(): Paths {
  const { by, schemas } = authProviderEntity.fields.configuration.variants;
  const providerBody = (schema: Schema): Schema => withVariants(schema, 'configuration', schemas, by);
  return {
    ...authPaths(),
    ...ssoPaths(),
    ...entityPaths({
      plural: 'auth_providers',
      label: 'auth provider',
      tag: 'Auth providers',
      create: providerBody(schemaOf(createAuthProviderBody)),
      patch: providerBody(schemaOf(patchAuthProviderBody)),
      actions: ['enable', 'disable'],
      permissions: { read: '`auth_provider:admin`', write: '`auth_provider:admin`' },
      view: authProviderView,
    }),
    ...entityPaths({
      plural: 'users',
      label: 'user',
      tag: 'Users',
      create: schemaOf(createUserBody, 'Only service accounts are created here; people arrive through sign-in.'),
      patch: schemaOf(patchUserBody),
      actions: USER_ACTIONS,
      deletable: false,
      permissions: { read: '`user:read`', write: '`user:admin`' },
      view: userView,
    }),
    ...personalAccessTokenPaths(),
    ...auditLogPaths(),
  };
}
