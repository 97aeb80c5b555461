#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config.js';

/*
 * Only the configuration is imported statically. Tracing, when on, must start before the server's
 * modules load (its instrumentations patch http, pg and graphql as they are first required), so the
 * server is imported after it.
 */

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** The version in the nearest package.json above this file (dist/src/main.js or src/main.ts). */
function packageVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
  }
  return '0.0.0';
}

/** Reads configuration, starts tracing if asked, then runs the server until a signal stops it. */
async function main(): Promise<void> {
  const config = configOrExit();
  const tracing = config.OTEL_EXPORTER_OTLP_ENDPOINT ? await (await import('./telemetry.js')).startTracing(packageVersion()) : undefined;
  const { runServer } = await import('./http/server.js');
  await runServer(config, { flush: tracing ? () => tracing.shutdown() : undefined });
}

main().catch((error: unknown) => {
  process.stderr.write(`infraledger failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
