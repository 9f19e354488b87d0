/**
 * What the local runtime keeps under `.data/` (or LOCAL_DATA_DIR) is for this user's eyes only: the
 * signing key (any token), schedules, stream checkpoints, dead letters (incidents, e-mail addresses),
 * the bus's journal and `runtime.json`. Files are written 0600 and folders 0700, whatever the umask,
 * and a folder written by an older version is tightened on start (`makePrivate`).
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** Creates `path` (and its missing parents) readable by this user only; an existing one is made so. */
export function privateDirectory(path: string) {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  chmodSync(path, PRIVATE_DIRECTORY_MODE);
}

/**
 * Writes `file` whole, readable by this user only: a new file beside it (0600), renamed over it, so a
 * killed process leaves the old content or the new, never half of either.
 */
export function writePrivateFile(file: string, data: string) {
  privateDirectory(dirname(file));
  const temporary = `${file}.tmp`;
  const descriptor = openSync(temporary, 'w', PRIVATE_FILE_MODE);
  try {
    // A `.tmp` left by a crash keeps its mode: set it again.
    chmodSync(temporary, PRIVATE_FILE_MODE);
    writeSync(descriptor, data);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, file);
}

/** Tightens `path` and everything under it (0700 folders, 0600 files); symbolic links are left alone. */
export function makePrivate(path: string) {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (stats.isDirectory()) {
    chmodSync(path, PRIVATE_DIRECTORY_MODE);
    for (const entry of readdirSync(path)) makePrivate(join(path, entry));
  } else if (stats.isFile()) {
    chmodSync(path, PRIVATE_FILE_MODE);
  }
}
