/**
 * Every test file gets its own table, created from the system description, in a DynamoDB Local
 * leased from the run's pool (dynamodb-pool.ts). When the file is done, the table is deleted and
 * the lease given back with the number of items the file wrote through the service's client.
 * Files share their worker process (and its modules); each starts as a new sandbox would, with
 * its own clients, caches and clock (shared/platform/sandbox.ts).
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, inject, vi } from 'vitest';
import { useLocalAws } from '../../infra/local/runtime/environment.js';
import { ensureTable } from '../../infra/local/aws/table.js';
import { table } from '../../shared/system.js';
import { db } from '../../shared/platform/db/client.js';
import { newSandbox } from '../../shared/platform/sandbox.js';
import { leaseDynamoDb } from './dynamodb-pool.js';

newSandbox();
const tableName = `test-${randomUUID()}`;
const lease = await leaseDynamoDb(inject('dynamodbPool'));
useLocalAws(lease.endpoint, tableName);
const admin = new DynamoDBClient({});
await ensureTable(admin, tableName, table);

/** Items a write command puts, updates or deletes. */
const itemsOf = (command: string, input: Record<string, any>): number => {
  if (command === 'TransactWriteItemsCommand') return input.TransactItems?.length ?? 0;
  if (command === 'BatchWriteItemCommand') return Object.values(input.RequestItems ?? {}).reduce((sum: number, requests) => sum + (requests as unknown[]).length, 0);
  return command === 'PutItemCommand' || command === 'UpdateItemCommand' || command === 'DeleteItemCommand' ? 1 : 0;
};
let written = 0;
db().middlewareStack.add(
  (next, context) => async (args) => {
    written += itemsOf(String(context.commandName), args.input as Record<string, any>);
    return next(args);
  },
  { step: 'initialize', name: 'countWrittenItems' },
);

afterAll(async () => {
  // What a file's own process would have taken with it (the next file in this worker starts clean).
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.useRealTimers();
  await admin.send(new DeleteTableCommand({ TableName: tableName }));
  admin.destroy();
  await lease.release(written);
});
