import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { createRequire } from 'node:module';

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

/** `LOG_FORMAT`: JSON lines, readable lines, or readable only when the output is a terminal. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** The log level, format and destination. */
export interface LoggerSettings {
  readonly level: string;
  /** Default `auto`: readable lines (pino-pretty) when the destination is a terminal, JSON otherwise. */
  readonly format?: LogFormat;
  /** Where lines go (default stdout); tests pass a capture stream to assert nothing secret is logged. */
  readonly destination?: NodeJS.WritableStream;
}

/** Whether lines should be readable rather than JSON: asked for, or `auto` and written to a terminal. */
export function wantsPrettyLines(format: LogFormat, destination: NodeJS.WritableStream): boolean {
  return format === 'pretty' || (format === 'auto' && (destination as { isTTY?: boolean }).isTTY === true);
}

/**
 * The service's pino logger, redacting secrets and tokens. On a terminal the lines go through
 * pino-pretty (in this thread, synchronously, so the last lines before an exit are not lost);
 * elsewhere (a container, a file, a log shipper) they stay one JSON object per line. Redaction
 * happens before either, so pretty lines hide the same values.
 */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: 'infraledger',
    level: settings.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  const destination = settings.destination ?? process.stdout;
  if (wantsPrettyLines(settings.format ?? 'auto', destination)) {
    const colorize = (destination as { isTTY?: boolean }).isTTY === true;
    // Loaded only for a terminal: 30 ms of every start (the CLI's included) otherwise.
    const PinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    const pretty = PinoPretty({
      destination: settings.destination ?? 1,
      sync: true,
      colorize,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,name',
    });
    return pino(options, pretty as DestinationStream);
  }
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
