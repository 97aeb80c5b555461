import { z } from 'zod';
import type { AccountDeclaration } from './account.js';
import { parseGrant, ROLES } from './permissions.js';

/** What kind of user an account is. */
export const USER_KINDS = ['human', 'service_account', 'guest'] as const;

const roles = z
  .array(z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` }))
  .max(3)
  .refine((r) => new Set(r).size === r.length, 'must not repeat a role');
const grants = z
  .array(z.string().refine((g) => parseGrant(g) !== undefined, 'must be {entity}:{read|write|admin} with a known entity'))
  .max(100)
  .refine((g) => new Set(g).size === g.length, 'must not repeat a grant');

/**
 * Users (docs/contract.md §5, §6): people arrive through sign-in, service accounts are created by a
 * super user, the guest identity by the service. Their commands are in src/commands/user.ts; every
 * layer's view of their fields derives from this declaration (./account.ts).
 */
export const userEntity = {
  name: 'User',
  kind: 'user',
  plural: 'users',
  table: 'users',
  description:
    'A person, service account or the guest identity. Everyone signed in sees names; e-mail, provider, roles, grants and ' +
    'deactivation are shown to holders of `user:read` and to the user themself (null otherwise).',
  fields: {
    kind: {
      kind: 'enum',
      values: USER_KINDS,
      description:
        '`human`, `service_account` or `guest` (only service accounts are created through the API; people arrive through sign-in).',
      // Only service accounts are created through the API; people arrive through sign-in.
      input: z.literal('service_account', { message: 'only service accounts are created here; people sign in through a provider' }),
      required: true,
      immutable: true,
    },
    identifier: {
      kind: 'text',
      description: 'Sign-in name: the service account name (1-100 letters, digits or `. _ @ -`), or the provider login / e-mail.',
      input: z.string().regex(/^[A-Za-z0-9._@-]{1,100}$/, 'must be 1-100 letters, digits or . _ @ -'),
      required: true,
      immutable: true,
      search: true,
    },
    email: {
      kind: 'text',
      description: 'Verified e-mail address, when known.',
      input: z.email({ message: 'must be an e-mail address' }),
      nullable: true,
      default: null,
      search: true,
      restricted: true,
    },
    displayName: {
      kind: 'text',
      description: 'Display name, when known.',
      input: z.string().trim().max(200, 'at most 200 characters'),
      nullable: true,
      default: null,
      search: true,
    },
    provider: {
      kind: 'text',
      description: 'The key of the provider the user signs in with.',
      nullable: true,
      writable: false,
      restricted: true,
    },
    /** The subject the provider knows an SSO user by (with `provider`, unique). */
    subject: { kind: 'text', description: 'The SSO subject.', nullable: true, writable: false, hidden: true },
    roles: { kind: 'textList', description: '`default`, `infra`, `super`.', input: roles, default: ['default'], restricted: true },
    grants: { kind: 'textList', description: 'Extra permissions such as `template:write`.', input: grants, default: [], restricted: true },
    /** scrypt hash (service accounts only). */
    passwordHash: {
      kind: 'text',
      description: "The service account's password hash.",
      nullable: true,
      default: null,
      secret: true,
      column: false,
    },
  },
  state: {
    deactivated: {
      kind: 'boolean',
      description: 'A deactivated user cannot sign in or use tokens.',
      initial: false,
      restricted: true,
    },
    /** Teams naming one of these count the user as a member (docs/contract.md §6). */
    externalGroups: { kind: 'textList', description: 'The groups the last sign-in reported.', initial: [], hidden: true },
    /** Every token issued before it is refused. */
    sessionsRevokedBefore: {
      kind: 'text',
      description: 'Tokens issued before it are refused.',
      nullable: true,
      initial: null,
      timestamp: true,
      hidden: true,
    },
  },
  updatable: ['displayName', 'email', 'roles', 'grants'],
  creator: true,
} as const satisfies AccountDeclaration;
