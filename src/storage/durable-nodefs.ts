import { closeSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * The embedded database's files, kept durable (docs/decisions/0013-durable-embedded-database.md).
 *
 * PGlite 0.5's Node filesystem (Emscripten's NODEFS) has no `fsync` among its stream operations, so
 * PostgreSQL's `fsync()` returns success without reaching the disk, and `fdatasync()` is a no-op in
 * Emscripten's libc. This filesystem is PGlite's own NodeFS with the one missing operation: `fsync`
 * on a file or a directory calls `fs.fsyncSync` on a native descriptor of it (a directory, which
 * NODEFS may hold without one, is opened for the call). PostgreSQL is then started with fsync on and
 * `wal_sync_method=fsync`, so every commit's WAL, every checkpoint's data files and the directories
 * PostgreSQL syncs after creating or renaming files reach the disk before it goes on.
 */

/** What `fsync` was called on (observed by tests and by the syscall trace's companion log). */
export type SyncedKind = 'file' | 'directory';

/** Told of every sync that reached the disk, with the host path synced. */
export type SyncObserver = (kind: SyncedKind, hostPath: string) => void;

/** The parts of Emscripten's module this patch touches. */
interface EmscriptenNodefs {
  readonly FS: { isDir(mode: number): boolean; ErrnoError: new (errno: number) => Error };
  readonly NODEFS: {
    realPath(node: unknown): string;
    stream_ops: Record<string, unknown>;
  };
}

interface Stream {
  readonly nfd?: number;
  readonly node: { readonly mode: number };
}

/** Emscripten's errno for an I/O error (EIO), reported to PostgreSQL when the host fsync fails. */
const EIO = 29;

/** Gives NODEFS the `fsync` it lacks; `fd_sync` (libc `fsync`) calls it and returns what it returns. */
function addFsync(module: EmscriptenNodefs, observe: SyncObserver | undefined): void {
  module.NODEFS.stream_ops.fsync = (stream: Stream): number => {
    const directory = module.FS.isDir(stream.node.mode);
    const hostPath = module.NODEFS.realPath(stream.node);
    try {
      if (stream.nfd !== undefined) fsyncSync(stream.nfd);
      else fsyncPath(hostPath);
    } catch {
      // PostgreSQL treats a failed fsync as data loss it cannot recover from (it stops): as it should.
      throw new module.FS.ErrnoError(EIO);
    }
    observe?.(directory ? 'directory' : 'file', hostPath);
    return 0;
  };
}

/** PGlite's NodeFS, whose `fsync` reaches the disk. */
export class DurableNodeFS extends NodeFS {
  constructor(
    dataDir: string,
    private readonly observe?: SyncObserver,
  ) {
    super(dataDir);
  }

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const preRun = [emscriptenOpts.preRun ?? []].flat() as ((module: unknown) => void)[];
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [...preRun, (module: unknown) => addFsync(module as EmscriptenNodefs, this.observe)] },
    };
  }
}

/**
 * Syncs every file and directory below `root` (children before their directory). PGlite writes a new
 * database's files by unpacking initdb's output, without a sync: this makes the new database durable
 * once, before the service acknowledges anything written to it.
 */
export function syncTree(root: string, observe?: SyncObserver): void {
  const stack: { dir: string; visited: boolean }[] = [{ dir: root, visited: false }];
  while (stack.length > 0) {
    const top = stack.pop() as { dir: string; visited: boolean };
    if (top.visited) {
      syncPath(top.dir, 'directory', observe);
      continue;
    }
    stack.push({ dir: top.dir, visited: true });
    for (const entry of readdirSync(top.dir, { withFileTypes: true })) {
      const full = path.join(top.dir, entry.name);
      if (entry.isDirectory()) stack.push({ dir: full, visited: false });
      else if (entry.isFile()) syncPath(full, 'file', observe);
    }
  }
  // The data directory's own name, in its parent.
  syncPath(path.dirname(root), 'directory', observe);
}

function syncPath(hostPath: string, kind: SyncedKind, observe: SyncObserver | undefined): void {
  fsyncPath(hostPath);
  observe?.(kind, hostPath);
}

/** Syncs a file or directory by path, through a descriptor opened for the call. */
function fsyncPath(hostPath: string): void {
  const fd = openSync(hostPath, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
