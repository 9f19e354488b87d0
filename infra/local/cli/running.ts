/**
 * Where a running local runtime can be found: `npm start` writes `.data/runtime.json` (its URL and
 * process id) once it listens, and removes it when it stops; `npm run token` and `npm run invoke`
 * read it, so they find the runtime on whatever port it runs. `PORT` still overrides.
 * `LOCAL_DATA_DIR` moves `.data/` (a second checkout, the tests).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repositoryRoot } from '../../paths.js';
import { processAlive } from '../../processes.js';
import { writePrivateFile } from '../aws/private-files.js';

export const DEFAULT_PORT = 3000;

/** Loopback addresses keep the runtime to this machine. */
export const isLoopback = (address: string) => /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(address);

export const dataDirectory = () => (process.env.LOCAL_DATA_DIR ? resolve(process.env.LOCAL_DATA_DIR) : join(repositoryRoot, '.data'));
const runtimeFile = () => join(dataDirectory(), 'runtime.json');

interface RunningRuntime {
  url: string;
  pid: number;
  dynamodb: { endpoint: string; pid: number };
}

export function recordRunning(runtime: RunningRuntime) {
  writePrivateFile(runtimeFile(), `${JSON.stringify(runtime, null, 2)}\n`);
}

/** Removes the record, if it is this process's. */
export function forgetRunning(pid = process.pid) {
  const running = readRunning();
  if (running?.pid === pid) rmSync(runtimeFile(), { force: true });
}

/** The running runtime's record, if its process is alive. */
export function runningRuntime(): RunningRuntime | undefined {
  const running = readRunning();
  return running && processAlive(running.pid) ? running : undefined;
}

function readRunning(): RunningRuntime | undefined {
  if (!existsSync(runtimeFile())) return undefined;
  try {
    return JSON.parse(readFileSync(runtimeFile(), 'utf8')) as RunningRuntime;
  } catch {
    return undefined;
  }
}

/** The URL of the local runtime to talk to: `PORT`, else the running runtime's record, else port 3000. */
export function runtimeUrl(): string {
  if (process.env.PORT) return `http://localhost:${Number(process.env.PORT)}`;
  return runningRuntime()?.url ?? `http://localhost:${DEFAULT_PORT}`;
}

/** Prints the usage line (and what was wrong) and exits 2, as command-line tools do for a mistake. */
export function usage(line: string, problem?: string): never {
  if (problem) console.error(problem);
  console.error(`Usage: ${line}`);
  process.exit(2);
}
