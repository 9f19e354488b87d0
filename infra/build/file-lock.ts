/**
 * A lock between processes of one machine: a directory created atomically (`mkdir` fails when it
 * exists), holding its owner's process id. Used where two processes would otherwise do the same long
 * work side by side (two bundlings of every function, about 12 s of CPU each) and one can wait for
 * the other's result instead.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../processes.js';

export interface FileLockOptions {
  /** How long to wait for another holder before doing the work anyway (never a deadlock). */
  waitMs?: number;
  /** Between looks at the lock. */
  pollMs?: number;
}

/** A lock directory with no owner file yet is taken as abandoned after this long. */
const OWNERLESS_MS = 10_000;

/** Whether the lock at `path` is held by a process that is gone (killed mid-work), or by none for long. */
function abandoned(path: string): boolean {
  try {
    const owner = Number(readFileSync(join(path, 'owner'), 'utf8'));
    return Number.isInteger(owner) && owner > 0 && !processAlive(owner);
  } catch {
    try {
      return Date.now() - statSync(path).mtimeMs > OWNERLESS_MS;
    } catch {
      return false;
    }
  }
}

function tryAcquire(path: string): boolean {
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (!abandoned(path)) return false;
    rmSync(path, { recursive: true, force: true });
    return tryAcquire(path);
  }
  writeFileSync(join(path, 'owner'), String(process.pid));
  return true;
}

/**
 * Runs `work` holding the lock at `path` (whose parent must exist). `ready` is asked first and after
 * every wait: what it answers, another holder's finished result, is returned without the lock.
 */
export async function withFileLock<T>(path: string, ready: () => T | undefined, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? 180_000);
  for (;;) {
    const done = ready();
    if (done !== undefined) return done;
    if (tryAcquire(path)) break;
    if (Date.now() > deadline) return work();
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
  try {
    return ready() ?? (await work());
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}
