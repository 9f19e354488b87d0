/** The local stream reader against DynamoDB Local's Streams API: what it asks of it while records flow. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { StreamPoller } from '../../infra/local/stream.js';
import { db, tableName } from '../../shared/db/client.js';

describe('StreamPoller', () => {
  const handled: string[] = [];
  const poller = new StreamPoller({
    tableName: tableName(),
    handle: async (event) => void handled.push(...event.Records.map((record) => String(record.dynamodb?.NewImage?.pk?.S))),
  });
  const sent: string[] = [];
  (poller as unknown as { streams: { middlewareStack: { add(middleware: unknown, options: unknown): void } } }).streams.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName: string }) => (args: unknown) => {
      sent.push(context.commandName);
      return next(args);
    },
    { step: 'initialize', name: 'countStreamCalls' },
  );
  afterAll(() => poller.stop());

  it('lists the shards once while records flow, and reads each write at the next poll', async () => {
    // Started for the stream's ARN, and stopped at once: the polls below are the test's own.
    await poller.start();
    await poller.stop();
    const put = (pk: string) => db().send(new PutCommand({ TableName: tableName(), Item: { pk, sk: 'STREAM', type: 'test' } }));
    // Catch up with what earlier writes to this table left on the stream.
    while ((await poller.pollOnce()) > 0);
    sent.length = 0;
    handled.length = 0;
    const written: string[] = [];
    for (let index = 0; index < 25; index++) {
      const pk = `STREAM#${randomUUID()}`;
      written.push(pk);
      await put(pk);
      expect(await poller.pollOnce()).toBe(1);
    }
    expect(handled).toEqual(written);
    // 25 polls with records: GetRecords only (it used to list the shards every 20th poll, ~10 ms each).
    expect(sent.filter((name) => name !== 'GetRecordsCommand')).toEqual([]);
    expect(sent.length).toBeGreaterThanOrEqual(25);
  });

  it('lists the shards again when the stream has been quiet for 5 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // A quiet poll, then one long after the last listing: it lists them, and the count starts there.
      expect(await poller.pollOnce()).toBe(0);
      vi.setSystemTime(Date.now() + 60_000);
      expect(await poller.pollOnce()).toBe(0);
      expect(sent).toContain('DescribeStreamCommand');
      sent.length = 0;
      vi.setSystemTime(Date.now() + 4_000);
      expect(await poller.pollOnce()).toBe(0);
      expect(sent).not.toContain('DescribeStreamCommand');
      vi.setSystemTime(Date.now() + 1_500);
      expect(await poller.pollOnce()).toBe(0);
      expect(sent.filter((name) => name === 'DescribeStreamCommand')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
