import { z } from 'zod';
import type { AccountDeclaration } from './account.js';

/**
 * Personal access tokens (docs/sign-in.md): long-lived bearer tokens a user makes for scripts. The
 * token is shown once; only its SHA-256 is kept, to find it on each request. Created and revoked by
 * src/commands/personal-access-token.ts; the read side derives from this declaration (./account.ts).
 */
export const personalAccessTokenEntity = {
  name: 'PersonalAccessToken',
  kind: 'personal_access_token',
  plural: 'personal_access_tokens',
  table: 'personal_access_tokens',
  description: 'A personal access token: its name and lifetime (never the token or its hash).',
  fields: {
    userId: {
      kind: 'id',
      description: 'The user the token acts as.',
      target: 'user',
      relation: { name: 'user', type: 'User', description: 'The user the token acts as.' },
      hidden: true,
    },
    name: { kind: 'text', description: 'What the token is for.' },
    /** SHA-256 hex of the token: encrypted in the store, redacted in audit views, still the lookup key. */
    tokenHash: {
      kind: 'text',
      description: "The token's SHA-256.",
      secret: true,
      hidden: true,
      stored: z.string().regex(/^[0-9a-f]{64}$/),
    },
    expiresAt: { kind: 'text', description: 'When it stops working.', timestamp: true },
  },
  state: {
    revokedAt: { kind: 'text', description: 'When it was revoked (null while it works).', nullable: true, initial: null, timestamp: true },
    lastUsedAt: {
      kind: 'text',
      description: 'When it was last used (null if never).',
      nullable: true,
      initial: null,
      timestamp: true,
      projected: false,
    },
  },
  updatable: [],
} as const satisfies AccountDeclaration;
