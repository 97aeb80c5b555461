import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  EMBEDDED_KEY_FILE,
  EMBEDDED_PREVIOUS_KEYS_FILE,
  generateSigningJwk,
  importSigningKey,
  loadOrCreateEmbeddedSigningKey,
  readEmbeddedPreviousKeys,
  type RetiredKey,
} from './tokens.js';

/** Writes a file whole or not at all (a crash mid-write must not leave half a key). */
async function replaceFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, file);
}

/** What a rotation did. */
export interface Rotation {
  readonly retiredKid: string;
  readonly activeKid: string;
  /** Every key that still verifies, oldest first (the new active key last). */
  readonly verifying: readonly string[];
}

/**
 * Rotates embedded mode's signing key in DATA_DIR: the current key's public part joins
 * `token-signing-keys-previous.json` (it keeps verifying the tokens it signed), a new key becomes
 * `token-signing-key.json`. The service picks both up at its next start. Previous first, then the
 * new key: a crash between the two writes leaves the old key signing and its public part listed
 * twice, never a token nobody can verify.
 */
export async function rotateEmbeddedSigningKey(dataDir: string, now: Date = new Date()): Promise<Rotation> {
  const { key: current } = await loadOrCreateEmbeddedSigningKey(dataDir);
  const previous = await readEmbeddedPreviousKeys(dataDir);
  const retired: RetiredKey = { ...current.publicJwk, retiredAt: now.toISOString() };
  const kept = [...previous.filter((k) => k.kid !== current.kid), retired];
  await replaceFile(path.join(dataDir, EMBEDDED_PREVIOUS_KEYS_FILE), `${JSON.stringify(kept, null, 2)}\n`);
  const next = await generateSigningJwk();
  const imported = await importSigningKey(next);
  await replaceFile(path.join(dataDir, EMBEDDED_KEY_FILE), JSON.stringify(next));
  return { retiredKid: current.kid, activeKid: imported.kid, verifying: [...kept.map((k) => k.kid ?? ''), imported.kid] };
}

/**
 * Drops previous keys retired more than `olderThanHours` ago: the tokens they signed have expired
 * once the longest token lifetime has passed (service-account tokens live up to 24 hours).
 */
export async function pruneEmbeddedPreviousKeys(
  dataDir: string,
  olderThanHours: number,
  now: Date = new Date(),
): Promise<{ dropped: string[]; kept: string[] }> {
  const previous = await readEmbeddedPreviousKeys(dataDir);
  const cutoff = now.getTime() - olderThanHours * 3_600_000;
  const kept = previous.filter((k) => Date.parse(k.retiredAt) > cutoff);
  const dropped = previous.filter((k) => !kept.includes(k));
  if (dropped.length > 0) await replaceFile(path.join(dataDir, EMBEDDED_PREVIOUS_KEYS_FILE), `${JSON.stringify(kept, null, 2)}\n`);
  return { dropped: dropped.map((k) => k.kid ?? ''), kept: kept.map((k) => k.kid ?? '') };
}
