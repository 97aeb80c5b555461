import type { Config } from '../config.js';
import { createLogger } from '../log.js';
import { PASSWORD_HASH_COST } from '../password-policy.js';
import { openServices } from '../services.js';
import { buildApp } from './app.js';
import { shutDownGracefully } from './shutdown.js';

/**
 * Opens the services, listens, and shuts down gracefully on SIGTERM or SIGINT (a second signal exits
 * at once). `flush` sends buffered telemetry at the very end.
 */
export async function runServer(config: Config, options: { readonly flush?: () => Promise<void> } = {}): Promise<void> {
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const services = await openServices(config, log);
  const app = await buildApp(services);
  const guest = await services.db
    .selectFrom('auth_providers')
    .select('key')
    .where('type', '=', 'guest')
    .where('enabled', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (guest)
    log.warn(
      { provider: guest.key },
      'the guest provider is enabled: anyone can sign in as the shared guest identity; insecure, for development only',
    );
  if (config.PASSWORD_HASH_COST < PASSWORD_HASH_COST.default) {
    log.warn(
      { cost: config.PASSWORD_HASH_COST, default: PASSWORD_HASH_COST.default },
      'PASSWORD_HASH_COST is below the default: new password hashes are cheaper to guess if the database leaks',
    );
  }
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) {
      log.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    closing = true;
    log.info({ signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutting down: no new connections; finishing requests in flight');
    const { drained } = await shutDownGracefully({ app, services, log, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, flush: options.flush });
    process.exit(drained ? 0 : 1);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.PORT, host: config.HOST });
  log.info(
    {
      baseUrl: config.BASE_URL,
      eventStore: config.EVENT_STORE,
      database: config.embedded ? `embedded PGlite in ${config.DATA_DIR}` : 'PostgreSQL',
      tracing: config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined,
    },
    'infraledger is ready',
  );
}
