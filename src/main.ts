#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './http/app.js';
import { createLogger } from './log.js';
import { openServices } from './services.js';

/** Reads configuration, opens the stores, listens; closes everything on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.LOG_LEVEL });
  const services = await openServices(config, log);
  const app = await buildApp(services);
  const guest = await services.db.selectFrom('auth_providers').select('key').where('type', '=', 'guest').where('enabled', '=', true).where('deleted_at', 'is', null).executeTakeFirst();
  if (guest) log.warn({ provider: guest.key }, 'the guest provider is enabled: anyone can sign in as the shared guest identity; insecure, for development only');
  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    await app.close();
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.PORT, host: config.HOST });
  log.info(
    { baseUrl: config.BASE_URL, eventStore: config.EVENT_STORE, database: config.embedded ? `embedded PGlite in ${config.DATA_DIR}` : 'PostgreSQL' },
    'infraledger is ready',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`infraledger failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
