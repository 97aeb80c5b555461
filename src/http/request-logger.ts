import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A logger that can say whether a level is written (pino's). */
type LevelAware = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

const isLevelAware = (logger: FastifyBaseLogger): logger is LevelAware =>
  typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';

/**
 * A request's logger (`request.log`), whose pino child is made on the first line written at an
 * enabled level. Making a child serialises its bindings through every redaction path
 * (src/log.ts), on every request, for lines that at `warn` and above are seldom written.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAware,
    private readonly bindings: Bindings,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  private made(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  private line(level: Level, args: unknown[]): void {
    // The parent's level until the child exists; the child's own (it may have been changed) after.
    if (this.#child === undefined && !this.parent.isLevelEnabled(level)) return;
    const write: (...line: unknown[]) => void = this.made()[level];
    write.apply(this.#child, args);
  }

  fatal(...args: unknown[]): void {
    this.line('fatal', args);
  }
  error(...args: unknown[]): void {
    this.line('error', args);
  }
  warn(...args: unknown[]): void {
    this.line('warn', args);
  }
  info(...args: unknown[]): void {
    this.line('info', args);
  }
  debug(...args: unknown[]): void {
    this.line('debug', args);
  }
  trace(...args: unknown[]): void {
    this.line('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a request logger made on first use, over the logger Fastify hands
 * in (the service's, with Fastify's `req`/`res` serializers: lines never carry a raw request).
 * Per-route log levels or serializers (none are set today), or a logger that cannot say which levels
 * it writes, get a pino child at once, as Fastify's default does.
 */
export function requestLoggerFactory() {
  return (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger =>
    Object.keys(options).length === 0 && isLevelAware(logger) ? new RequestLogger(logger, bindings) : logger.child(bindings, options);
}
