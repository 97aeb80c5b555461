#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.js';
import { pruneEmbeddedPreviousKeys, rotateEmbeddedSigningKey } from '../auth/signing-key-rotation.js';
import { loadOrCreateEmbeddedSigningKey, readEmbeddedPreviousKeys } from '../auth/tokens.js';

const USAGE = `usage: npm run signing-key -- list | rotate | prune [--older-than-hours 24]
  list     the key that signs tokens and the previous keys that still verify (embedded mode: DATA_DIR)
  rotate   a new key signs from the next start on; the current one keeps verifying until pruned
  prune    drop previous keys retired more than --older-than-hours ago (default 24: the longest
           service-account token lifetime; raise it if ACCESS_TOKEN_TTL_SECONDS is longer)
Restart the service after rotate or prune. With TOKEN_SIGNING_KEY set (PostgreSQL), rotate through
TOKEN_SIGNING_KEYS_PREVIOUS instead: see docs/operations.md, "Rotating the token signing key".`;

function hoursOption(args: readonly string[]): number {
  const index = args.indexOf('--older-than-hours');
  if (index === -1) return 24;
  const value = Number(args[index + 1]);
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(`--older-than-hours takes a number of hours\n${USAGE}`);
  return value;
}

async function main(args: readonly string[]): Promise<void> {
  const config = loadConfig();
  const command = args[0];
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE);
    return;
  }
  if (config.TOKEN_SIGNING_KEY !== undefined) {
    throw new ConfigError(
      'TOKEN_SIGNING_KEY is set: the key is not kept in DATA_DIR. Rotate it with TOKEN_SIGNING_KEYS_PREVIOUS (docs/operations.md, ' +
        '"Rotating the token signing key").',
    );
  }
  const dataDir = config.DATA_DIR;
  if (command === 'list') {
    const { key } = await loadOrCreateEmbeddedSigningKey(dataDir);
    console.log(`signing: ${key.kid}`);
    for (const previous of await readEmbeddedPreviousKeys(dataDir))
      console.log(`verifying: ${previous.kid ?? '?'} (retired ${previous.retiredAt})`);
  } else if (command === 'rotate') {
    const rotation = await rotateEmbeddedSigningKey(dataDir);
    console.log(
      `rotated: ${rotation.retiredKid} → ${rotation.activeKid}; restart the service to sign with the new key (the old one keeps verifying)`,
    );
  } else if (command === 'prune') {
    const { dropped, kept } = await pruneEmbeddedPreviousKeys(dataDir, hoursOption(args));
    console.log(
      `dropped ${dropped.length} previous key(s)${dropped.length > 0 ? ` (${dropped.join(', ')})` : ''}; ` +
        `${kept.length} still verify; restart the service`,
    );
  } else {
    throw new ConfigError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
