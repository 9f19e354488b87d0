import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../infra/build/file-lock.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => (dir = mkdtempSync(join(tmpdir(), 'file-lock-')));

describe('withFileLock', () => {
  it('lets one holder work while another waits, then hands the waiter the result', async () => {
    const lock = join(fresh(), 'work.lock');
    let result: string | undefined;
    const started: string[] = [];
    let release!: () => void;
    const first = withFileLock(lock, () => result, async () => {
      started.push('first');
      await new Promise<void>((resolve) => (release = resolve));
      result = 'built once';
      return result;
    }, { pollMs: 5 });
    const second = withFileLock(lock, () => result, async () => {
      started.push('second');
      return 'built twice';
    }, { pollMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toEqual(['first']);
    expect(existsSync(lock)).toBe(true);
    release();
    expect(await Promise.all([first, second])).toEqual(['built once', 'built once']);
    expect(started).toEqual(['first']);
    expect(existsSync(lock)).toBe(false);
  });

  it('gives the lock back when the work fails', async () => {
    const lock = join(fresh(), 'work.lock');
    await expect(withFileLock(lock, () => undefined, async () => Promise.reject(new Error('esbuild failed')))).rejects.toThrow('esbuild failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder is gone', async () => {
    const lock = join(fresh(), 'work.lock');
    mkdirSync(lock);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(lock, 'owner'), String(gone));
    expect(await withFileLock(lock, () => undefined, async () => 'worked', { waitMs: 60_000 })).toBe('worked');
  });

  it('takes over a lock left without an owner for long, and waits on a fresh one', async () => {
    const lock = join(fresh(), 'work.lock');
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await withFileLock(lock, () => undefined, async () => 'worked', { waitMs: 60_000 })).toBe('worked');
    mkdirSync(lock);
    let worked = false;
    const waiting = withFileLock(lock, () => undefined, async () => (worked = true), { waitMs: 60_000, pollMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(worked).toBe(false);
    rmSync(lock, { recursive: true });
    await waiting;
    expect(worked).toBe(true);
  });

  it('works anyway after waiting its limit on a holder that is alive (never a deadlock)', async () => {
    const lock = join(fresh(), 'work.lock');
    mkdirSync(lock);
    writeFileSync(join(lock, 'owner'), String(process.pid));
    expect(await withFileLock(lock, () => undefined, async () => 'worked', { waitMs: 30, pollMs: 5 })).toBe('worked');
    expect(existsSync(join(lock, 'owner'))).toBe(true);
  });
});
