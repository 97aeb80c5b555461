import { useQueryClient } from '@tanstack/react-query';
import { createClient, type Client } from 'graphql-ws';
import { useEffect } from 'react';
import { accessToken, onSessionChange } from './session';

/** The react-admin resource that shows each audit entity type (the audit log shows them all). */
const RESOURCE_OF: Readonly<Record<string, string>> = {
  template: 'templates',
  integration: 'integrations',
  secret: 'secrets',
  workspace: 'workspaces',
  source_code: 'source_codes',
  source_code_version: 'source_code_versions',
  storage: 'storages',
  executor: 'executors',
  resource: 'resources',
  team: 'teams',
  webhook: 'webhooks',
  auth_provider: 'auth_providers',
  user: 'users',
  personal_access_token: 'personal_access_tokens',
};

const CHANGES = 'subscription ($after: String) { changes(after: $after) { position entityType } }';
/** A runner moves a resource through several events at once: one refetch for the lot. */
const SETTLE_MS = 150;
/** After the socket fails (service restarting, network), try again this much later. */
const RETRY_MS = 5_000;

interface ChangeMessage {
  readonly changes?: { readonly position: string; readonly entityType: string };
}

/**
 * Keeps every page live: one GraphQL subscription to the service's changes, and each change marks
 * the queries of the resource that shows it (and the audit log) stale, so the lists and pages on
 * screen refetch without a reload. The subscription follows the session (a refreshed token
 * reconnects) and resumes after the last position it saw, so no change is missed across reconnects.
 */
export function useLiveUpdates(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    let client: Client | undefined;
    let stop: (() => void) | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let settle: ReturnType<typeof setTimeout> | undefined;
    let lastPosition: string | undefined;
    let connectedWith: string | undefined;
    const stale = new Set<string>();

    const flush = () => {
      settle = undefined;
      for (const resource of stale) void queryClient.invalidateQueries({ queryKey: [resource] });
      stale.clear();
    };
    const disconnect = () => {
      stop?.();
      void client?.dispose();
      stop = undefined;
      client = undefined;
      connectedWith = undefined;
    };
    const connect = () => {
      const token = accessToken();
      if (token === connectedWith) return;
      disconnect();
      if (!token) return;
      connectedWith = token;
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/graphql`;
      client = createClient({ url, connectionParams: { Authorization: `Bearer ${token}` }, lazy: true, retryAttempts: 0 });
      stop = client.subscribe<ChangeMessage>(
        { query: CHANGES, variables: lastPosition === undefined ? {} : { after: lastPosition } },
        {
          next: ({ data }) => {
            const change = data?.changes;
            if (!change) return;
            lastPosition = change.position;
            const resource = RESOURCE_OF[change.entityType];
            if (resource) stale.add(resource);
            // The approval queue lists resources; what the caller may do with an entity follows its changes.
            if (resource === 'resources') stale.add('approvals');
            stale.add('entity-access');
            stale.add('audit_log');
            settle ??= setTimeout(flush, SETTLE_MS);
          },
          error: () => {
            disconnect();
            retry = setTimeout(connect, RETRY_MS);
          },
          complete: () => undefined,
        },
      );
    };

    connect();
    const unlisten = onSessionChange(connect);
    return () => {
      unlisten();
      if (retry !== undefined) clearTimeout(retry);
      if (settle !== undefined) clearTimeout(settle);
      disconnect();
    };
  }, [queryClient]);
}
