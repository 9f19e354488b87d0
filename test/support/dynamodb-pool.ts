/**
 * DynamoDB Local for a test run, handed out to test files over a loopback endpoint.
 *
 * DynamoDB Local keeps every stream record of the process in one SQLite table (deleting or
 * un-streaming a table does not remove them), and every write slows down as that table grows:
 * measured here, 400 Put+Query pairs took 2.0 s on a fresh instance and 3.9 s after 9,000 streamed
 * writes to tables since deleted. With one instance for the whole run, a file that ran after the
 * 1,000-incident move took two to three times as long as alone. So each file reports the items it
 * wrote when it gives its lease back, an instance that has taken `WRITE_BUDGET` items is retired,
 * and a spare, started in advance (about 1.5 s and 2.5 s of CPU), takes its place: no file waits
 * for a start but the first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SHORT_LIVED_JVM, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/aws/dynamodb-local.js';
import { freePort } from '../../infra/local/runtime/ports.js';

/** Items an instance takes before it is retired (once the files using it have finished). */
export const WRITE_BUDGET = 3_000;

interface Instance {
  id: number;
  started: Promise<DynamoDbLocal>;
  written: number;
  open: number;
}

export class DynamoDbPool {
  private next = 0;
  private current: Instance | undefined;
  private spare: Instance | undefined;
  private readonly instances = new Map<number, Instance>();
  private readonly stopping = new Set<Promise<void>>();

  /** Starts nothing until the first lease (a run of unit tests alone never starts Java). */
  constructor(private readonly writeBudget = WRITE_BUDGET) {}

  /** Instances started so far. */
  get started() {
    return this.next;
  }

  private start(): Instance {
    // A port found free may be taken before Java binds it (the start then fails): one more try elsewhere.
    const launch = () => freePort().then((port) => startDynamoDbLocal({ port, jvmArgs: SHORT_LIVED_JVM }));
    const instance: Instance = { id: this.next++, started: launch().catch(launch), written: 0, open: 0 };
    // A failed start is reported to the file that leases the instance, not as an unhandled rejection here.
    instance.started.catch(() => undefined);
    this.instances.set(instance.id, instance);
    return instance;
  }

  /** The current instance for one test file, with the id to give it back by. */
  async lease(): Promise<{ id: number; endpoint: string }> {
    const instance = (this.current ??= this.start());
    this.spare ??= this.start();
    instance.open += 1;
    return { id: instance.id, endpoint: (await instance.started).endpoint };
  }

  /** A file is done with instance `id`, having written `written` items to it. */
  release(id: number, written: number) {
    const instance = this.instances.get(id);
    if (!instance) return;
    instance.open -= 1;
    instance.written += written;
    if (instance === this.current && instance.written >= this.writeBudget) {
      this.current = this.spare;
      this.spare = undefined;
    }
    if (instance !== this.current && instance !== this.spare && instance.open === 0) this.stop(instance);
  }

  private stop(instance: Instance) {
    this.instances.delete(instance.id);
    const stopped = instance.started.then((database) => database.stop(), () => undefined);
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
  }

  async close() {
    for (const instance of [...this.instances.values()]) this.stop(instance);
    await Promise.all([...this.stopping]);
  }
}

/** Serves a pool on loopback: `POST /lease` answers `{id, endpoint}`; `POST /release/{id}?written=N`. */
export async function servePool(pool: DynamoDbPool): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = new URL(request.url ?? '/', 'http://pool');
    const release = /^\/release\/(\d+)$/.exec(url.pathname);
    if (request.method === 'POST' && url.pathname === '/lease') {
      pool.lease().then((lease) => answer(200, lease), (error: Error) => answer(500, { message: error.message }));
    } else if (request.method === 'POST' && release) {
      pool.release(Number(release[1]), Number(url.searchParams.get('written') ?? 0));
      answer(200, {});
    } else answer(404, { message: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}

/** A test file's side: leases an instance; `release` gives it back with the items the file wrote. */
export async function leaseDynamoDb(poolUrl: string): Promise<{ endpoint: string; release(written: number): Promise<void> }> {
  const response = await fetch(`${poolUrl}/lease`, { method: 'POST' });
  const body = (await response.json()) as { id: number; endpoint: string; message?: string };
  if (!response.ok) throw new Error(`DynamoDB Local did not start: ${body.message}`);
  return {
    endpoint: body.endpoint,
    release: async (written) => void (await fetch(`${poolUrl}/release/${body.id}?written=${written}`, { method: 'POST' })),
  };
}
