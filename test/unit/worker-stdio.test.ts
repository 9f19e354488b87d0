import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/local/paths.js';

describe("the background thread's stdout (infra/local/worker-stdio.ts)", () => {
  it('writes every line whole and in order, waiting while a non-blocking pipe is full, beside the main thread’s lines', async () => {
    const child = spawn(process.execPath, [join(repositoryRoot, 'test/fixtures/worker-stdio/main.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader takes nothing for a while: the pipe (64 KB) fills long before the worker's megabyte is out.
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

    expect(stderr).toContain('stdout non-blocking: true');
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('worker lines relayed by the main thread: 0');
    const lines = Buffer.concat(chunks).toString().trimEnd().split('\n');
    const worker = lines.filter((line) => line.startsWith('worker '));
    const main = lines.filter((line) => line.startsWith('main '));
    expect(worker.length + main.length).toBe(lines.length);
    expect(worker).toEqual(Array.from({ length: 5_000 }, (_, index) => `worker ${index} ${'x'.repeat(200)}`));
    expect(main).toEqual(Array.from({ length: 200 }, (_, index) => `main ${index}`));
  });
});
