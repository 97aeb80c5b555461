import { createClient } from 'graphql-ws';
import { useEffect, useState } from 'react';
import { api } from './client';
import { accessToken } from './session';

/** One piece of a run's log as the service sends it (secrets already masked). */
export interface RunLogChunk {
  readonly seq: number;
  readonly content: string;
  /** When the runner appended it. */
  readonly at: string;
}

/** What a tail has shown so far. */
export interface RunLogState {
  readonly chunks: readonly RunLogChunk[];
  /** The run ended and every chunk arrived. */
  readonly complete: boolean;
  readonly error?: string;
}

const RUN_LOG = 'subscription ($runId: UUID!, $after: Int) { runLog(runId: $runId, after: $after) { seq content at } }';
/** After the socket fails (service restarting, network), resume this much later. */
const RETRY_MS = 3_000;

const messageOf = (error: unknown): string => {
  if (Array.isArray(error)) return error.map((e: { message?: unknown }) => String(e.message)).join('; ');
  if (error instanceof Error) return error.message;
  const closed = error as { reason?: unknown } | null;
  return typeof closed?.reason === 'string' && closed.reason !== '' ? closed.reason : 'the connection closed';
};

/** Whether the run still takes output (the service ended the tail because it ended, or the socket closed). */
async function stillOpen(resourceId: string, runId: string): Promise<boolean> {
  try {
    const { body } = await api<{ status: string }>(`/api/resources/${encodeURIComponent(resourceId)}/runs/${encodeURIComponent(runId)}`);
    return body.status === 'queued' || body.status === 'in_progress';
  } catch {
    return false;
  }
}

/**
 * A run's log, live: the GraphQL subscription `runLog(runId, after)` replays what was appended and
 * then each chunk as the runner appends it, until the run ends. A dropped connection (which the
 * client may report as a completion) resumes after the last chunk received, so nothing is shown
 * twice or missed; the log is complete once the run has ended.
 */
export function useRunLogTail(resourceId: string, runId: string | undefined): RunLogState {
  const [state, setState] = useState<RunLogState>({ chunks: [], complete: false });
  useEffect(() => {
    setState({ chunks: [], complete: false });
    if (!runId) return;
    let last = 0;
    // An object, not a `let`: callbacks read it after the effect's cleanup set it.
    const life = { stopped: false };
    let retry: ReturnType<typeof setTimeout> | undefined;
    let dispose: (() => void) | undefined;
    const connect = () => {
      dispose?.();
      const token = accessToken();
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/graphql`;
      const client = createClient({
        url,
        connectionParams: token ? { Authorization: `Bearer ${token}` } : {},
        lazy: true,
        retryAttempts: 0,
      });
      const unsubscribe = client.subscribe<{ runLog?: RunLogChunk }>(
        { query: RUN_LOG, variables: { runId, after: last } },
        {
          next: ({ data }) => {
            const chunk = data?.runLog;
            if (life.stopped || !chunk || chunk.seq <= last) return;
            last = chunk.seq;
            setState((current) => ({ chunks: [...current.chunks, chunk], complete: false }));
          },
          error: (error: unknown) => {
            if (life.stopped) return;
            setState((current) => ({ ...current, error: messageOf(error) }));
            // GraphQL errors (no such run, no permission) are final; a dropped connection is not.
            if (!Array.isArray(error)) retry = setTimeout(connect, RETRY_MS);
          },
          complete: () => {
            if (life.stopped) return;
            void stillOpen(resourceId, runId).then((open) => {
              if (life.stopped) return;
              if (open) retry = setTimeout(connect, RETRY_MS);
              else setState((current) => ({ ...current, complete: true, error: undefined }));
            });
          },
        },
      );
      dispose = () => {
        unsubscribe();
        void client.dispose();
      };
    };
    connect();
    return () => {
      life.stopped = true;
      if (retry !== undefined) clearTimeout(retry);
      dispose?.();
    };
  }, [resourceId, runId]);
  return state;
}
