import { z } from 'zod';
import { defineEvent, type EventDefinition, type EventOf } from './define.js';
import { accountCreatedSchema, accountVersioning, secretPathsOfAccount } from '../model/account.js';
import { personalAccessTokenEntity } from '../model/personal-access-token.js';

/**
 * A personal access token was created (src/model/personal-access-token.ts): only its hash is kept,
 * encrypted in the event store and redacted in the audit log (the hash still identifies the token).
 */
export const PersonalAccessTokenCreated = defineEvent('PersonalAccessTokenCreated', accountCreatedSchema(personalAccessTokenEntity), {
  secretPaths: secretPathsOfAccount(personalAccessTokenEntity),
  ...accountVersioning(personalAccessTokenEntity),
});

/** A personal access token was revoked. */
export const PersonalAccessTokenRevoked = defineEvent('PersonalAccessTokenRevoked', z.object({ reason: z.string() }));

/** Every personal access token event. */
export type PersonalAccessTokenEvent = EventOf<typeof PersonalAccessTokenCreated> | EventOf<typeof PersonalAccessTokenRevoked>;

/** Every personal access token event, for the codec's catalog. */
export const personalAccessTokenEvents: readonly EventDefinition[] = [PersonalAccessTokenCreated, PersonalAccessTokenRevoked];
