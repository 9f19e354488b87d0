import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';

describe("the background thread's stdout (infra/local/perf/worker-stdio.ts)", () => {
  it('writes every line whole and in order, waiting while a non-blocking pipe is full, beside the main thread’s lines', async () => {
    const child = spawn(process.execPath, [join(repositoryRoot, 'test/fixtures/worker-stdio/main.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    // The reader takes nothing until the child has seen the pipe (64 KB) full: the worker's megabyte
    // cannot be out before then, so the worker has waited on a full non-blocking pipe.
    child.stdout.pause();
    const full = new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('stdout pipe full')) resolve();
      }),
    );
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    await Promise.race([full, closed]);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await closed;

    expect(stderr).toContain('stdout non-blocking: true');
    expect(stderr).toContain('stdout pipe full');
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('worker lines relayed by the main thread: 0');
    const lines = Buffer.concat(chunks).toString().trimEnd().split('\n');
    const worker = lines.filter((line) => line.startsWith('worker '));
    const main = lines.filter((line) => line.startsWith('main '));
    expect(worker.length + main.length).toBe(lines.length);
    expect(worker).toEqual(Array.from({ length: 5_000 }, (_, index) => `worker ${index} ${'x'.repeat(200)}`));
    expect(main.length).toBeGreaterThanOrEqual(200);
    expect(main).toEqual(Array.from({ length: main.length }, (_, index) => `main ${index}`));
  });
});
