import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_NAME_ENV } from '../../system.js';
import { leanClient } from '../aws-client.js';
import { requireEnv } from '../config.js';
import { perSandbox } from '../sandbox.js';

/**
 * The DynamoDB document client, created once per cold start. Region, credentials and
 * endpoint come from the standard AWS SDK environment (the local runtime sets
 * `AWS_ENDPOINT_URL_DYNAMODB` to DynamoDB Local), so handler code is identical everywhere.
 */
export const db: () => DynamoDBDocumentClient = perSandbox(() => newDocumentClient(), (client) => client.destroy());

/** A document client as the service's is configured (the bench's floors make their calls with one too). */
export function newDocumentClient(): DynamoDBDocumentClient {
  // The document client shares the low-level client's middleware stack.
  return DynamoDBDocumentClient.from(leanClient(new DynamoDBClient({})), { marshallOptions: { removeUndefinedValues: true } });
}

export const tableName: () => string = perSandbox(() => requireEnv(TABLE_NAME_ENV));
