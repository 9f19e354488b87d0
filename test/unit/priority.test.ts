/** Background work yields the CPU to requests: the background thread and the mailbox process run at nice 10. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE, lowerProcessPriority } from '../../infra/local/perf/priority.js';

describe('background priority', () => {
  const processNice = getPriority(process.pid);

  it.runIf(existsSync('/proc/thread-self') && processNice < BACKGROUND_NICE)('lowers the calling thread alone (Linux): its process keeps its priority', async () => {
    const worker = new Worker(new URL('../fixtures/priority-worker.mjs', import.meta.url));
    const report = await new Promise<{ lowered: boolean; threadId: number; nice: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(report).toMatchObject({ lowered: true, nice: BACKGROUND_NICE });
    expect(report.threadId).not.toBe(process.pid);
    expect(getPriority(process.pid)).toBe(processNice);
  });

  it.runIf(processNice < BACKGROUND_NICE)('lowers a child process, and answers false for one that is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)']);
    try {
      expect(lowerProcessPriority(child.pid)).toBe(true);
      expect(getPriority(child.pid!)).toBe(BACKGROUND_NICE);
    } finally {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    }
    expect(lowerProcessPriority(child.pid)).toBe(false);
    expect(lowerProcessPriority(undefined)).toBe(false);
  });
});
