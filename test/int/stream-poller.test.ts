/** The local stream reader against DynamoDB Local's Streams API: what it asks of it, and when. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StreamPoller, type StreamPollerOptions } from '../../infra/local/aws/stream.js';
import { db, tableName } from '../../shared/platform/db/client.js';
import { within } from '../support/deadlines.js';

type Middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName: string }) => (args: unknown) => Promise<unknown>;

/** A poller whose Streams calls are counted (and, when `answer` says so, answered without DynamoDB Local). */
function poller(options: Partial<StreamPollerOptions> & { answer?: (command: string) => unknown } = {}) {
  const handled: string[] = [];
  const sent: string[] = [];
  /** The errors DynamoDB Local answered, by name. */
  const refused: string[] = [];
  const instance = new StreamPoller({
    tableName: tableName(),
    handle: async (event) => void handled.push(...event.Records.map((record) => String(record.dynamodb?.NewImage?.pk?.S))),
    ...options,
  });
  const counting: Middleware = (next, context) => async (args) => {
    sent.push(context.commandName);
    const canned = options.answer?.(context.commandName);
    if (canned === undefined) {
      try {
        return await next(args);
      } catch (error) {
        refused.push((error as Error).name);
        throw error;
      }
    }
    sent.push('(answered by the test)');
    return { output: canned };
  };
  (instance as unknown as { streams: { middlewareStack: { add(middleware: Middleware, options: object): void } } }).streams.middlewareStack.add(counting, {
    step: 'initialize',
    name: 'countStreamCalls',
  });
  return { instance, handled, sent, refused };
}

const put = (pk: string) => db().send(new PutCommand({ TableName: tableName(), Item: { pk, sk: 'STREAM', type: 'test' } }));

afterEach(() => vi.useRealTimers());

describe('StreamPoller', () => {
  // Opened without its loop: every poll below is the test's.
  const reader = poller();
  beforeAll(async () => {
    await reader.instance.open();
    while ((await reader.instance.pollOnce()) > 0);
  });
  afterAll(() => reader.instance.stop());

  it('reads each write at the next poll, and never lists the shards before a read while none has closed', async () => {
    reader.sent.length = 0;
    reader.refused.length = 0;
    reader.handled.length = 0;
    const written: string[] = [];
    for (let index = 0; index < 25; index++) {
      const pk = `STREAM#${randomUUID()}`;
      written.push(pk);
      await put(pk);
      expect(await reader.instance.pollOnce()).toBe(1);
    }
    // Long after the last listing, too: a read that a write asked for does not wait for one.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60_000);
    const late = `STREAM#${randomUUID()}`;
    await put(late);
    expect(await reader.instance.pollOnce()).toBe(1);
    expect(reader.handled).toEqual([...written, late]);
    // GetRecords only (the shards used to be listed every 20th poll, about 10 ms each), but for a fresh
    // iterator (at most two) after DynamoDB Local refused one as trimmed (its bug: see stream.ts).
    const trimmed = reader.refused.filter((name) => name === 'TrimmedDataAccessException').length;
    expect(reader.refused.filter((name) => name !== 'TrimmedDataAccessException')).toEqual([]);
    expect(reader.sent.filter((name) => name !== 'GetRecordsCommand' && name !== 'GetShardIteratorCommand')).toEqual([]);
    expect(reader.sent.filter((name) => name === 'GetShardIteratorCommand').length).toBeLessThanOrEqual(2 * trimmed);
  });

  it("lists a quiet stream's shards between polls, once per 5 s", async () => {
    const quiet = poller({ pollMs: 10 });
    await quiet.instance.start();
    try {
      await vi.waitFor(() => expect(quiet.sent).toContain('DescribeStreamCommand'), { timeout: within(30_000) });
      vi.useFakeTimers({ toFake: ['Date'] });
      quiet.sent.length = 0;
      // Timer-driven polls for a while: nothing is due yet.
      vi.setSystemTime(Date.now() + 2_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(quiet.sent).not.toContain('DescribeStreamCommand');
      // Past 5 s since the listing: one listing, then none until 5 s more have passed.
      vi.setSystemTime(Date.now() + 3_500);
      await vi.waitFor(() => expect(quiet.sent).toContain('DescribeStreamCommand'), { timeout: within(30_000) });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(quiet.sent.filter((name) => name === 'DescribeStreamCommand')).toHaveLength(1);
    } finally {
      await quiet.instance.stop();
    }
  });

  it("lists the shards before the next read once a shard has closed (its children appear then)", async () => {
    let closeNext = false;
    const closing = poller({ answer: (command) => (command === 'GetRecordsCommand' && closeNext ? { Records: [], $metadata: {} } : undefined) });
    await closing.instance.open();
    try {
      while ((await closing.instance.pollOnce()) > 0);
      closing.sent.length = 0;
      // The shard answers as a closed one does: no next iterator.
      closeNext = true;
      expect(await closing.instance.pollOnce()).toBe(0);
      closeNext = false;
      // The next poll lists the shards first (here DynamoDB Local's shard stays open and has no child,
      // so there is nothing more to read; after a real split its child would be read next).
      expect(await closing.instance.pollOnce()).toBe(0);
      expect(closing.sent).toEqual(['GetRecordsCommand', '(answered by the test)', 'DescribeStreamCommand']);
    } finally {
      await closing.instance.stop();
    }
  });
});
