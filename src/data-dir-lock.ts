import { open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Embedded PGlite is one process's database: a second process opening the same DATA_DIR would
 * corrupt it. A pid file held for the process's lifetime refuses the second one with a clear message
 * (and is taken over when the process that wrote it is gone).
 */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, 'infraledger.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => unlink(file).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid)) {
        throw new Error(`DATA_DIR ${dataDir} is in use by process ${pid}; stop it first (the embedded database allows one process)`);
      }
      await unlink(file).catch(() => undefined);
    }
  }
  throw new Error(`could not lock DATA_DIR ${dataDir}`);
}
