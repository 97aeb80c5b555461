import { sql as eventStore } from './001-event-store.js';
import { sql as templates } from './002-templates.js';
import { sql as appendFunction } from './003-append-function.js';
import { sql as usersAndSessions } from './004-users-sessions.js';
import { sql as authProviders } from './005-auth-providers.js';
import { sql as auditLog } from './006-audit-log.js';
import { sql as personalAccessTokens } from './007-personal-access-tokens.js';
import { sql as integrations } from './008-integrations.js';
import { sql as secrets } from './009-secrets.js';
import { sql as workspaces } from './010-workspaces.js';
import { sql as teamsAndOwnership } from './030-teams-and-ownership.js';
import { sql as webhooks } from './031-webhooks.js';
import { sql as deliveryCursors } from './032-delivery-cursors.js';
import { sql as favorites } from './033-favorites.js';
import { sql as breakingChanges } from './034-breaking-changes.js';
import { sql as versionIndex } from './035-version-index.js';
import { sql as jsonbMergeAggregate } from './036-jsonb-merge-aggregate.js';
import { sql as claimProjections } from './037-claim-projections.js';
import { sql as readPageFunction } from './038-read-page-function.js';
import { sql as readableBoundFunction } from './039-readable-bound-function.js';
import { sql as checkedAppend } from './040-checked-append.js';
import { sql as confirmPage } from './041-confirm-page.js';
import { sql as dutiesAndActingWebhooks } from './042-duties-and-acting-webhooks.js';
import { sql as sourceCodes } from './011-source-codes.js';
import { sql as sourceCodeVersions } from './012-source-code-versions.js';
import { sql as storages } from './013-storages.js';
import { sql as executors } from './014-executors.js';
import { sql as resources } from './015-resources.js';
import { sql as templateDocumentationUrl } from './016-template-documentation-url.js';
import { sql as idempotencyKeys } from './017-idempotency-keys.js';
import { sql as signInLimits } from './018-sign-in-limits.js';
import { sql as runs } from './020-runs.js';
import { sql as auditHistory } from './022-audit-history.js';
import { sql as signInRetention } from './024-sign-in-retention.js';
import { sql as concurrentAppend } from './026-concurrent-append.js';
import { sql as trigramSearch } from './027-trigram-search.js';
import { sql as groupedAppend } from './028-grouped-append.js';
import { sql as reverseRelationIndexes } from './029-reverse-relation-indexes.js';

/** One migration: its id and SQL. */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}

/** Applied in this order, each once. Never edit a shipped migration: add the next one. */
export const migrations: readonly Migration[] = [
  { id: '001-event-store', sql: eventStore },
  { id: '002-templates', sql: templates },
  { id: '003-append-function', sql: appendFunction },
  { id: '004-users-sessions', sql: usersAndSessions },
  { id: '005-auth-providers', sql: authProviders },
  { id: '006-audit-log', sql: auditLog },
  { id: '007-personal-access-tokens', sql: personalAccessTokens },
  { id: '008-integrations', sql: integrations },
  { id: '009-secrets', sql: secrets },
  { id: '010-workspaces', sql: workspaces },
  { id: '011-source-codes', sql: sourceCodes },
  { id: '012-source-code-versions', sql: sourceCodeVersions },
  { id: '013-storages', sql: storages },
  { id: '014-executors', sql: executors },
  { id: '015-resources', sql: resources },
  { id: '016-template-documentation-url', sql: templateDocumentationUrl },
  { id: '017-idempotency-keys', sql: idempotencyKeys },
  { id: '018-sign-in-limits', sql: signInLimits },
  { id: '020-runs', sql: runs },
  { id: '022-audit-history', sql: auditHistory },
  { id: '024-sign-in-retention', sql: signInRetention },
  { id: '026-concurrent-append', sql: concurrentAppend },
  { id: '027-trigram-search', sql: trigramSearch },
  { id: '028-grouped-append', sql: groupedAppend },
  { id: '029-reverse-relation-indexes', sql: reverseRelationIndexes },
  { id: '030-teams-and-ownership', sql: teamsAndOwnership },
  { id: '031-webhooks', sql: webhooks },
  { id: '032-delivery-cursors', sql: deliveryCursors },
  { id: '033-favorites', sql: favorites },
  { id: '034-breaking-changes', sql: breakingChanges },
  { id: '035-version-index', sql: versionIndex },
  { id: '036-jsonb-merge-aggregate', sql: jsonbMergeAggregate },
  { id: '037-claim-projections', sql: claimProjections },
  { id: '038-read-page-function', sql: readPageFunction },
  { id: '039-readable-bound-function', sql: readableBoundFunction },
  { id: '040-checked-append', sql: checkedAppend },
  { id: '041-confirm-page', sql: confirmPage },
  { id: '042-duties-and-acting-webhooks', sql: dutiesAndActingWebhooks },
];
