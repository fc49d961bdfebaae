import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { DurableAgentError } from '../shared/errors';

/** Another embedded dev server already uses this database file; two at once would corrupt it. */
export class DevServerBusyError extends DurableAgentError {
  override readonly name = 'DevServerBusyError';
}

/** Whether the process that wrote a lock file is still alive (a lock from another host counts as alive). */
async function ownerAlive(lockFile: string): Promise<{ alive: boolean; pid?: number }> {
  try {
    const owner = JSON.parse(await fs.readFile(lockFile, 'utf8')) as { pid?: unknown; host?: unknown };
    if (typeof owner.pid !== 'number') return { alive: false };
    if (owner.host !== os.hostname()) return { alive: true, pid: owner.pid };
    process.kill(owner.pid, 0); // signal 0 only probes whether the process exists
    return { alive: true, pid: owner.pid };
  } catch (error) {
    // ESRCH: its process is gone. EPERM: it exists under another user. Anything else: an unreadable, stale lock.
    return { alive: (error as NodeJS.ErrnoException).code === 'EPERM' };
  }
}

/**
 * Takes `<dbFile>.lock` for this process, so a second `server` (or `run`) on the same SQLite file fails with one line
 * instead of corrupting it. A lock left by a process that died is taken over. Returns the release.
 */
export async function lockDatabase(dbFile: string): Promise<() => Promise<void>> {
  const lockFile = `${dbFile}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fs.writeFile(lockFile, JSON.stringify({ pid: process.pid, host: os.hostname() }), { flag: 'wx' });
      return () => fs.rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await ownerAlive(lockFile);
    if (owner.alive) {
      throw new DevServerBusyError(
        `${dbFile} is in use by another Temporal dev server${owner.pid ? ` (process ${owner.pid})` : ''}: use that one, or stop it first`,
      );
    }
    await fs.rm(lockFile, { force: true });
  }
  throw new DevServerBusyError(`${dbFile} is locked (${lockFile}) and the lock could not be taken over`);
}
