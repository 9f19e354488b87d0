/** Every test file gets its own table in the shared DynamoDB Local, created from the system description. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { useLocalAws } from '../../infra/local/environment.js';
import { ensureTable } from '../../infra/local/table.js';
import { table } from '../../infra/system.js';

const tableName = `test-${randomUUID()}`;
useLocalAws(inject('dynamodbEndpoint'), tableName);
const admin = new DynamoDBClient({});
await ensureTable(admin, tableName, table);
admin.destroy();
