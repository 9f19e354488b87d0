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

// What the previous file's own process would have taken with it, put back here (not at that file's
// end, which a failing hook before it could skip): its spies, stubs and fake timers, the variables it
// or its runtime set (as the worker had them before its first file), and its sandbox.
vi.restoreAllMocks();
vi.unstubAllEnvs();
vi.useRealTimers();
const worker = globalThis as { environmentBeforeFirstFile?: Record<string, string | undefined> };
worker.environmentBeforeFirstFile ??= { ...process.env };
const ownedByVitest = (name: string) => name.startsWith('VITEST');
for (const name of Object.keys(process.env)) if (!ownedByVitest(name) && !(name in worker.environmentBeforeFirstFile)) delete process.env[name];
for (const [name, value] of Object.entries(worker.environmentBeforeFirstFile)) if (!ownedByVitest(name)) process.env[name] = value;
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
  try {
    await admin.send(new DeleteTableCommand({ TableName: tableName }));
  } finally {
    admin.destroy();
    await lease.release(written);
  }
});
