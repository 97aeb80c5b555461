/**
 * Failures of the database rather than of the caller or of our code: lost connection, shutdown,
 * deadlock or serialization failure, exhausted resources. Projections retry them from their
 * checkpoint; requests answer 503. Matched on SQLSTATE classes and the exact driver messages, so an
 * error that merely mentions "closed" is not mistaken for one.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(08|40|53|57|58)/.test(code)) return true;
  if (typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND)$/.test(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /^(Connection terminated|Client was closed|the embedded database is closed|timeout exceeded when trying to connect)/.test(message);
}
