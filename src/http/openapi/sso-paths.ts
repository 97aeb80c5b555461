import type { OpenAPIV3_1 } from 'openapi-types';
import { SSO_ERROR_CODES } from '../../auth/sso/errors.js';
import { jsonResponse, problems, type Paths } from './components.js';

const PUBLIC: OpenAPIV3_1.SecurityRequirementObject[] = [];
const keyParam: OpenAPIV3_1.ParameterObject = {
  name: 'key',
  in: 'path',
  required: true,
  description: 'The key of a `github`, `google` or `microsoft` provider.',
  schema: { type: 'string', pattern: '^[a-z0-9_-]+$' },
};
const redirect = (description: string): OpenAPIV3_1.ResponseObject => ({
  description,
  headers: { Location: { schema: { type: 'string', format: 'uri' } } },
});
const failure = `or to \`{BASE_URL}/login?error=<code>\`, code one of ${SSO_ERROR_CODES.map((c) => `\`${c}\``).join(', ')}`;

/** Browser single sign-on and the Backstage token exchange (docs/contract.md §5). */
export function ssoPaths(): Paths {
  const tags = ['Authentication'];
  return {
    '/api/auth/{key}/login': {
      get: {
        tags,
        operationId: 'sso_login',
        summary: 'Start a browser sign-in at the identity provider',
        description:
          'Redirects to the provider with `state`, PKCE S256 and, for OpenID Connect, `nonce`; sets the HttpOnly, SameSite=Lax state ' +
          'cookie `il_sso` (10 minutes, used once).',
        security: PUBLIC,
        parameters: [keyParam],
        responses: { '302': redirect(`To the identity provider, ${failure}.`), ...problems(404, 429, 503) },
      },
    },
    '/api/auth/{key}/callback': {
      get: {
        tags,
        operationId: 'sso_callback',
        summary: 'Complete a browser sign-in (the redirect URI registered at the identity provider)',
        description:
          'Checks `state` against the state cookie, redeems the code with the PKCE verifier, checks the ID token (nonce, issuer, ' +
          'audience; Microsoft: tenant), the verified e-mail and the domain filter, then starts a browser session.',
        security: PUBLIC,
        parameters: [keyParam],
        responses: { '302': redirect(`To \`{BASE_URL}/\` with the refresh cookie \`il_refresh\` set, ${failure}.`), ...problems(404, 429) },
      },
    },
    '/api/auth/backstage/token': {
      post: {
        tags,
        operationId: 'backstage_token',
        summary: 'Exchange a Backstage user token for a service session token',
        description:
          'Send the Backstage user token (`typ: vnd.backstage.user`) as `Authorization: Bearer <token>`; needs an enabled `backstage` ' +
          'provider.',
        security: PUBLIC,
        responses: {
          '200': jsonResponse('A session token.', {
            type: 'object',
            required: ['token', 'expiresAt'],
            properties: { token: { type: 'string', description: 'Bearer JWT.' }, expiresAt: { type: 'string', format: 'date-time' } },
          }),
          ...problems(401, 429, 503),
        },
      },
    },
  };
}
