/**
 * DynamoDB Local for a test run, handed out to test files over a loopback endpoint.
 *
 * DynamoDB Local keeps every stream record of every table in one SQLite table for as long as the
 * process lives (deleting or un-streaming a table does not remove them), and its writes slow down
 * as that table grows: measured here, 400 Put+Query pairs took 2.0 s on a fresh instance and 3.9 s
 * after 9,000 streamed writes to tables since deleted. One instance for a whole run made the
 * files that run late two to three times slower than alone. So an instance serves a few files
 * and is then retired, while the next one has already started beside it (about 1.5 s and 2.5 s of
 * CPU each): no file waits for a start but the first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local.js';
import { freePort } from '../../infra/local/ports.js';

/** Files an instance serves before it is retired (once every file it served has finished). */
export const FILES_PER_INSTANCE = 4;

interface Instance {
  id: number;
  started: Promise<DynamoDbLocal>;
  leases: number;
  open: number;
}

export class DynamoDbPool {
  private next = 0;
  private current: Instance;
  private spare: Instance | undefined;
  private readonly retiring = new Set<Promise<void>>();
  private readonly byId = new Map<number, Instance>();

  constructor(private readonly filesPerInstance = FILES_PER_INSTANCE) {
    this.current = this.start();
  }

  private start(): Instance {
    const instance: Instance = { id: this.next++, started: freePort().then((port) => startDynamoDbLocal({ port })), leases: 0, open: 0 };
    // A failed start is reported to the file that leases it; here it must not be an unhandled rejection.
    instance.started.catch(() => undefined);
    this.byId.set(instance.id, instance);
    return instance;
  }

  /** An instance for one test file, with the id to release it by. */
  async lease(): Promise<{ id: number; endpoint: string }> {
    if (this.current.leases >= this.filesPerInstance) {
      const full = this.current;
      this.current = this.spare ?? this.start();
      this.spare = undefined;
      if (full.open === 0) this.retire(full);
    }
    const instance = this.current;
    instance.leases += 1;
    instance.open += 1;
    // The instance's last file: start its successor now, so the next file finds it running.
    if (instance.leases >= this.filesPerInstance) this.spare ??= this.start();
    return { id: instance.id, endpoint: (await instance.started).endpoint };
  }

  release(id: number) {
    const instance = this.byId.get(id);
    if (!instance) return;
    instance.open -= 1;
    if (instance.open === 0 && instance !== this.current) this.retire(instance);
  }

  private retire(instance: Instance) {
    this.byId.delete(instance.id);
    const stopped = instance.started.then((database) => database.stop(), () => undefined);
    this.retiring.add(stopped);
    void stopped.finally(() => this.retiring.delete(stopped));
  }

  async stop() {
    for (const instance of this.byId.values()) this.retire(instance);
    await Promise.all([...this.retiring]);
  }
}

/** Serves a pool on loopback: `POST /lease` answers `{id, endpoint}`, `POST /release/{id}`. */
export async function servePool(pool: DynamoDbPool): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const release = /^\/release\/(\d+)$/.exec(request.url ?? '');
    if (request.method === 'POST' && request.url === '/lease') {
      pool.lease().then((lease) => answer(200, lease), (error: Error) => answer(500, { message: error.message }));
    } else if (request.method === 'POST' && release) {
      pool.release(Number(release[1]));
      answer(200, {});
    } else answer(404, { message: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.stop();
    },
  };
}

/** A test file's side: leases an instance, and answers its endpoint and how to give it back. */
export async function leaseDynamoDb(poolUrl: string): Promise<{ endpoint: string; release(): Promise<void> }> {
  const response = await fetch(`${poolUrl}/lease`, { method: 'POST' });
  const body = (await response.json()) as { id: number; endpoint: string; message?: string };
  if (!response.ok) throw new Error(`DynamoDB Local did not start: ${body.message}`);
  return {
    endpoint: body.endpoint,
    release: async () => void (await fetch(`${poolUrl}/release/${body.id}`, { method: 'POST' })),
  };
}
