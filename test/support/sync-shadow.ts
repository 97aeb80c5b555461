import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SyncedKind } from '../../src/storage/durable-nodefs.js';

/**
 * What a disk would hold after losing its page cache: a copy of a data directory that takes in only
 * what was synced. A file's content becomes durable when the file is synced; a name (a new file, a
 * rename, an unlink) when its directory is. Until then the copy keeps what was durable before: the
 * old content under a name, or an empty file for a name whose content was never synced. Files are
 * followed by inode, so a synced file renamed into place (PostgreSQL's durable rename) keeps its
 * content. Fed by the embedded database's sync observer; `live` is the data directory, `shadow` the copy.
 */
export function syncShadow(live: string, shadow: string) {
  /** The content each inode had when it was last synced. */
  const synced = new Map<number, Buffer>();
  /** Which inode each durable name in the copy stands for. */
  const names = new Map<string, number>();

  const fileSynced = (hostPath: string): void => {
    const inode = statSync(hostPath).ino;
    const content = readFileSync(hostPath);
    synced.set(inode, content);
    const relative = path.relative(live, hostPath);
    if (names.get(relative) === inode) writeFileSync(path.join(shadow, relative), content);
  };

  const directorySynced = (hostPath: string): void => {
    const relative = path.relative(live, hostPath);
    const target = path.join(shadow, relative);
    mkdirSync(target, { recursive: true });
    const present = new Set(readdirSync(hostPath));
    for (const name of readdirSync(target)) {
      if (present.has(name)) continue;
      rmSync(path.join(target, name), { recursive: true, force: true });
      names.delete(path.join(relative, name));
    }
    for (const entry of readdirSync(hostPath, { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      const copy = path.join(target, entry.name);
      if (entry.isDirectory()) {
        mkdirSync(copy, { recursive: true });
        continue;
      }
      const inode = statSync(path.join(hostPath, entry.name)).ino;
      if (names.get(name) === inode && existsSync(copy)) continue; // the same file: its durable content stays
      names.set(name, inode);
      writeFileSync(copy, synced.get(inode) ?? Buffer.alloc(0));
    }
  };

  return {
    /** The sync observer to give the embedded database. */
    observe: (kind: SyncedKind, hostPath: string): void => {
      const relative = path.relative(live, hostPath);
      if (relative.startsWith('..')) return; // the data directory's parent
      if (kind === 'file') fileSynced(hostPath);
      else directorySynced(hostPath);
    },
  };
}
