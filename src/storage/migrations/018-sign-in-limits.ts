/**
 * The sign-in limiter's counters (src/auth/rate-limit.ts), in the database so that every replica of
 * one database counts together. Not read models: nothing projects into them, and losing them only
 * forgets recent attempts. Times are milliseconds since the epoch, as the service's clock gives them.
 *
 * - `sign_in_address_windows`: attempts per client address per minute-long window (the sliding
 *   window weighs the previous window's count), pruned once both windows have passed.
 * - `sign_in_failures`: per identifier (its SHA-256, lower-cased first: typed identifiers are
 *   sometimes passwords), the attempts since the last success and when the last one was let through.
 */
export const sql = `
CREATE TABLE sign_in_address_windows (
  address text NOT NULL,
  window_start bigint NOT NULL,
  attempts integer NOT NULL,
  PRIMARY KEY (address, window_start)
);
CREATE INDEX sign_in_address_windows_window_start_idx ON sign_in_address_windows (window_start);

CREATE TABLE sign_in_failures (
  identifier_hash text PRIMARY KEY,
  attempts integer NOT NULL,
  last_at bigint NOT NULL
);
CREATE INDEX sign_in_failures_last_at_idx ON sign_in_failures (last_at);
`;
