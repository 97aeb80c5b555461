import { z } from 'zod';
import { defineEvent, type EventDefinition, type EventOf } from './define.js';

/** A personal access token was created (only its hash is kept). */
export const PersonalAccessTokenCreated = defineEvent(
  'PersonalAccessTokenCreated',
  z.object({
    id: z.string(),
    userId: z.string(),
    name: z.string(),
    // SHA-256 hex of the token; the token itself is never stored anywhere.
    tokenHash: z.string().regex(/^[0-9a-f]{64}$/),
    expiresAt: z.iso.datetime({ offset: true }),
  }),
  // Encrypted in the event store and redacted in the audit log: the hash still identifies the token.
  { secretPaths: ['tokenHash'] },
);

/** A personal access token was revoked. */
export const PersonalAccessTokenRevoked = defineEvent('PersonalAccessTokenRevoked', z.object({ reason: z.string() }));

/** Every personal access token event. */
export type PersonalAccessTokenEvent = EventOf<typeof PersonalAccessTokenCreated> | EventOf<typeof PersonalAccessTokenRevoked>;

/** Every personal access token event, for the codec's catalog. */
export const personalAccessTokenEvents: readonly EventDefinition[] = [PersonalAccessTokenCreated, PersonalAccessTokenRevoked];
