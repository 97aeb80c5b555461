import { z } from 'zod';
import type { AccountDeclaration } from './account.js';

/** How a caller signed in. */
export const AUTH_METHODS = ['session', 'service_account', 'personal_access_token', 'guest', 'backstage'] as const;

/** Why a session ended. */
export const SESSION_END_REASONS = [
  'logout',
  'revoked',
  'refresh_token_reused',
  'expired',
  'identity_provider_refused',
  'provider_disabled',
] as const;

/**
 * Sessions (docs/sign-in.md): every token the service issues belongs to one, and the authenticator
 * checks it on every request (ended? expired?). Started, refreshed and ended by sign-in only
 * (src/commands/session.ts); the read side derives from this declaration (./account.ts).
 */
export const sessionEntity = {
  name: 'Session',
  kind: 'session',
  plural: 'sessions',
  table: 'sessions',
  description: 'A signed-in session: every token the service issues belongs to one.',
  fields: {
    userId: {
      kind: 'id',
      description: 'The user signed in.',
      target: 'user',
      relation: { name: 'user', type: 'User', description: 'The user signed in.' },
    },
    method: { kind: 'enum', values: AUTH_METHODS, description: 'How the user signed in.' },
    provider: { kind: 'text', description: 'The key of the provider signed in through, when one was.', nullable: true },
    expiresAt: { kind: 'text', description: 'When the session ends unless refreshed.', timestamp: true },
    /** SHA-256 of the current refresh token (browser sessions only): only the write model compares it. */
    refreshTokenHash: {
      kind: 'text',
      description: "The current refresh token's hash.",
      nullable: true,
      secret: true,
      column: false,
    },
    /**
     * The identity provider's own refresh token (Google sign-ins), used on each session refresh to
     * re-check the account; absent from events written before single sign-on.
     */
    upstreamRefreshToken: {
      kind: 'text',
      description: "The identity provider's refresh token.",
      nullable: true,
      default: null,
      secret: true,
      column: false,
      stored: z.string().optional(),
    },
  },
  state: {
    endedAt: { kind: 'text', description: 'When the session ended.', nullable: true, initial: null, timestamp: true },
    endReason: { kind: 'enum', values: SESSION_END_REASONS, description: 'Why it ended.', nullable: true, initial: null },
  },
  updatable: [],
} as const satisfies AccountDeclaration;
