/** Creates or updates the table from the system description (local runtime and tests). */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type GlobalSecondaryIndex,
} from '@aws-sdk/client-dynamodb';
import type { TableDescription } from '../../../shared/system.js';

const globalIndex = (index: TableDescription['globalIndexes'][number]): GlobalSecondaryIndex => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
    { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'ALL' },
});

function attributeDefinitions(description: TableDescription) {
  const all = [
    description.partitionKey,
    description.sortKey,
    ...description.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  const unique = new Map(all.map((attribute) => [attribute.name, attribute.type]));
  return [...unique].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
}

export async function ensureTable(client: DynamoDBClient, tableName: string, description: TableDescription) {
  let existing;
  try {
    existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  if (!existing) {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributeDefinitions(description),
        KeySchema: [
          { AttributeName: description.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: description.sortKey.name, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: description.globalIndexes.map(globalIndex),
        StreamSpecification: { StreamEnabled: true, StreamViewType: description.stream },
      }),
    );
  } else {
    const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const index of description.globalIndexes.filter((candidate) => !present.has(candidate.name))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions(description),
          GlobalSecondaryIndexUpdates: [{ Create: globalIndex(index) }],
        }),
      );
    }
  }
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: description.timeToLiveAttribute },
      }),
    );
  }
}
