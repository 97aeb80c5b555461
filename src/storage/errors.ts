/** The driver messages (node-postgres, PGlite) of a connection that is gone, at their start. */
const CONNECTION_LOST = new RegExp(
  '^(Connection terminated|Client was closed|Client has encountered a connection error|the embedded database is closed|' +
    'timeout exceeded when trying to connect)',
);

/**
 * A database that cannot be reached or has gone away: refused, reset or lost connections, a server
 * shutting down or not accepting connections yet. The statement did not run, or its connection is
 * gone; another server (a hot standby's primary) may still answer it.
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(08|57P0[123])/.test(code)) return true;
  if (typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/.test(code))
    return true;
  const message = error instanceof Error ? error.message : '';
  // A database closed to connections (ALLOW_CONNECTIONS false during maintenance) is an outage too.
  if (code === '55000' && message.includes('is not currently accepting connections')) return true;
  return CONNECTION_LOST.test(message);
}

/**
 * Failures of the database rather than of the caller or of our code: lost connection, shutdown,
 * deadlock or serialization failure, exhausted resources. Projections retry them from their
 * checkpoint; requests answer 503. Matched on SQLSTATE classes and the exact driver messages, so an
 * error that merely mentions "closed" is not mistaken for one.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(08|40|53|57|58)/.test(code)) return true;
  return isConnectionFailure(error);
}
