/**
 * The bench's processes of their own (issue 33): a floor server, started as a user's service would be
 * and told apart by the port it prints, and a client, given its plan in a file and answering its rows
 * in another. Each runs our TypeScript with tsx (`node --import tsx <file> …`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../../paths.js';

function spawnTs(file: string, args: string[], env: NodeJS.ProcessEnv, stdio: 'inherit' | 'pipe'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(repositoryRoot, file), ...args], { env: { ...env, NODE_OPTIONS: '' }, stdio: ['ignore', stdio, 'inherit'], cwd: repositoryRoot });
}

/** Starts `file` (a server that prints `{"port":N}` once it listens) with `env`; answers once it listens. */
export async function startServerProcess(file: string, env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawnTs(file, [], env, 'pipe');
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const line = /\{"port":(\d+)\}/.exec(out);
      if (line) resolve(Number(line[1]));
    });
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before it listened: ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs the client `file` on `plan` in a process of its own and answers what it wrote. */
export async function runClientProcess<T>(file: string, plan: unknown): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-client-'));
  const [planFile, resultFile] = [join(dir, 'plan.json'), join(dir, 'result.json')];
  writeFileSync(planFile, JSON.stringify(plan));
  const client = spawnTs(file, [planFile, resultFile], process.env, 'inherit');
  const code = await new Promise<number | null>((resolve) => client.once('exit', resolve));
  if (code !== 0) throw new Error(`${file} failed (exit ${code})`);
  return JSON.parse(readFileSync(resultFile, 'utf8')) as T;
}
