import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear (one level of nesting is matched by the wildcards).
 * Request logging adds headers; events and errors add bodies.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'clientSecret',
  'privateKey',
  'refreshToken',
  'accessToken',
  '*.password',
  '*.secret',
  '*.token',
  '*.clientSecret',
  '*.privateKey',
  '*.refreshToken',
  '*.accessToken',
  '*.authorization',
  '*.cookie',
];

/** The log level and destination. */
export interface LoggerSettings {
  readonly level: string;
  /** Where lines go; tests pass a capture stream to assert nothing secret is logged. */
  readonly destination?: NodeJS.WritableStream;
}

/** The service's pino logger, redacting secrets and tokens. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: 'infraledger',
    level: settings.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
