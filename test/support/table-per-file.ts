/**
 * Every test file gets its own table, created from the system description, in a DynamoDB Local
 * leased from the run's pool (dynamodb-pool.ts); the table is deleted and the lease given back
 * when the file is done.
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { useLocalAws } from '../../infra/local/environment.js';
import { ensureTable } from '../../infra/local/table.js';
import { table } from '../../infra/system.js';
import { leaseDynamoDb } from './dynamodb-pool.js';

const tableName = `test-${randomUUID()}`;
const lease = await leaseDynamoDb(inject('dynamodbPool'));
useLocalAws(lease.endpoint, tableName);
const admin = new DynamoDBClient({});
await ensureTable(admin, tableName, table);

afterAll(async () => {
  await admin.send(new DeleteTableCommand({ TableName: tableName }));
  admin.destroy();
  await lease.release();
});
