/**
 * The local runtime's IAM: a function's DynamoDB calls are held to exactly its AWS grant (actions,
 * indexes, leading keys), item by item inside batches and transactions.
 */
import { describe, expect, it } from 'vitest';
import { denial } from '../../infra/local/aws/grants.js';
import { routes, workers } from '../../shared/system.js';

const route = (name: string) => routes.find((candidate) => candidate.name === name)!;

describe('local IAM grants', () => {
  it('refuses writes to a read-only function and BatchWriteItem to those that delete no collections', () => {
    expect(denial(route('incidents-get'), 'GetItemCommand', { Key: { pk: 'INCIDENT#1', sk: 'INCIDENT' } })).toBeUndefined();
    expect(denial(route('incidents-get'), 'PutItemCommand', { Item: { pk: 'INCIDENT#1', sk: 'INCIDENT' } })).toMatch(/dynamodb:PutItem/);
    expect(denial(route('incidents-list'), 'TransactWriteItemsCommand', { TransactItems: [{ ConditionCheck: { Key: { pk: 'TEAM#x' } } }, { Update: { Key: { pk: 'TEAM#x' } } }] })).toMatch(
      /dynamodb:UpdateItem/,
    );
    expect(denial(route('incidents-update'), 'BatchWriteItemCommand', { RequestItems: { t: [{ DeleteRequest: { Key: { pk: 'X' } } }] } })).toMatch(/BatchWriteItem/);
    expect(denial(route('teams-delete'), 'BatchWriteItemCommand', { RequestItems: { t: [{ DeleteRequest: { Key: { pk: 'TEAM#x' } } }] } })).toBeUndefined();
    expect(denial(route('incidents-list'), 'ScanCommand', {})).toMatch(/dynamodb:Scan/);
  });

  it('holds a confined function to its leading keys, in any key shape, and off every index', () => {
    const notifier = workers.notifier;
    expect(denial(notifier, 'QueryCommand', { KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': 'pk' }, ExpressionAttributeValues: { ':pk': 'MONITOR#1' } })).toBeUndefined();
    expect(denial(notifier, 'QueryCommand', { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'TEAM#1' } } })).toMatch(/leading key TEAM#1/);
    expect(denial(notifier, 'QueryCommand', { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'OWNER#1' } })).toMatch(/index\/gsi1/);
    expect(denial(notifier, 'PutItemCommand', { Item: { pk: { S: 'DELIVERY#e' }, sk: { S: 'a@example.com' } } })).toBeUndefined();
    expect(denial(notifier, 'DeleteItemCommand', { Key: { pk: 'WEBHOOK#1', sk: 'WEBHOOK' } })).toMatch(/leading key WEBHOOK#1/);
    const unsubscribe = route('unsubscribe-confirm');
    expect(
      denial(unsubscribe, 'TransactWriteItemsCommand', {
        TransactItems: [{ Delete: { Key: { pk: 'UNSUB#t' } } }, { Delete: { Key: { pk: 'MONITOR#m' } } }, { Put: { Item: { pk: 'OUTBOX#x' } } }],
      }),
    ).toMatch(/leading key OUTBOX#x/);
    expect(denial(unsubscribe, 'BatchGetItemCommand', { RequestItems: { t: { Keys: [{ pk: 'UNSUB#t' }, { pk: 'TEAM#x' }] } } })).toMatch(/TEAM#x/);
  });

  it('lets an index reader Query the indexes it names, and only Query them', () => {
    const monitors = route('monitors-list');
    const onIndex = (index: string) => ({ IndexName: index, KeyConditionExpression: `${index}pk = :pk`, ExpressionAttributeValues: { ':pk': 'OWNER#1' } });
    expect(denial(monitors, 'QueryCommand', onIndex('gsi1'))).toBeUndefined();
    expect(denial(monitors, 'QueryCommand', onIndex('gsi2'))).toBeUndefined();
    expect(denial(monitors, 'QueryCommand', onIndex('gsi3'))).toBe('monitors-list is not authorized to perform dynamodb:Query on index/gsi3 (its grant names the table and Query of gsi1, gsi2 only)');
    // The table itself stays confined to its leading keys.
    expect(denial(monitors, 'GetItemCommand', { Key: { pk: 'TEAM#1', sk: 'TEAM' } })).toBeUndefined();
    expect(denial(monitors, 'GetItemCommand', { Key: { pk: 'USER#1', sk: 'PROFILE' } })).toMatch(/leading key USER#1/);
    const onMonitor = { IndexName: 'gsi3', KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': 'gsi3pk' }, ExpressionAttributeValues: { ':pk': { S: 'MONITOR#1' } } };
    expect(denial(workers.incidentRescoper, 'QueryCommand', onMonitor)).toBeUndefined();
    expect(denial(workers.incidentRescoper, 'QueryCommand', onIndex('gsi1'))).toMatch(/on index\/gsi1 \(its grant names the table and Query of gsi3 only\)/);
  });

  it("holds an index Query to the index partitions the function names (dynamodb:LeadingKeys of the index's partition key)", () => {
    const query = (index: string, pk: string) => ({ IndexName: index, KeyConditionExpression: `${index === 'heartbeat-due' ? 'hb_due_pk' : `${index}pk`} = :pk AND begins_with(#sk, :prefix)`, ExpressionAttributeNames: { '#sk': 'x' }, ExpressionAttributeValues: { ':pk': pk, ':prefix': 'SCHEDULE#' } });
    // The public calendar feed: the user's own partition of the owner index, their teams' of the team index, nothing else.
    const feed = route('calendars-feed');
    expect(denial(feed, 'QueryCommand', query('gsi1', 'OWNER#u1'))).toBeUndefined();
    expect(denial(feed, 'QueryCommand', query('gsi2', 'TEAM#t1'))).toBeUndefined();
    expect(denial(feed, 'QueryCommand', query('gsi2', 'MONITOR#m1'))).toBe('calendars-feed is not authorized to perform dynamodb:Query on index/gsi2 with leading key MONITOR#m1 (dynamodb:LeadingKeys OWNER#, TEAM#)');
    expect(denial(feed, 'QueryCommand', query('gsi3', 'MONITOR#m1'))).toMatch(/on index\/gsi3 \(its grant names the table and Query of gsi1, gsi2 only\)/);
    // A webhook's deliveries (gsi3's WEBHOOK# partitions) are not a monitor's incidents.
    expect(denial(route('reports-incidents'), 'QueryCommand', query('gsi3', 'MONITOR#m1'))).toBeUndefined();
    expect(denial(route('reports-incidents'), 'QueryCommand', query('gsi3', 'WEBHOOK#w1'))).toBe(
      'reports-incidents is not authorized to perform dynamodb:Query on index/gsi3 with leading key WEBHOOK#w1 (dynamodb:LeadingKeys OWNER#, TEAM#, MONITOR#)',
    );
    // The due index's two sweeps each read their own shards.
    expect(denial(workers.heartbeatSweep, 'QueryCommand', query('heartbeat-due', 'HEARTBEAT#a'))).toBeUndefined();
    expect(denial(workers.heartbeatSweep, 'QueryCommand', query('heartbeat-due', 'SHIFTSTART#a'))).toMatch(/leading key SHIFTSTART#a \(dynamodb:LeadingKeys HEARTBEAT#\)/);
    expect(denial(workers.shiftNotices, 'QueryCommand', query('heartbeat-due', 'HEARTBEAT#a'))).toMatch(/leading key HEARTBEAT#a \(dynamodb:LeadingKeys SHIFTSTART#\)/);
    // A Query that names no partition of the index (none can, on AWS) is refused.
    expect(denial(feed, 'QueryCommand', { IndexName: 'gsi1', KeyConditionExpression: 'gsi1sk = :sk', ExpressionAttributeValues: { ':sk': 'x' } })).toMatch(/leading key \(none\)/);
  });
});
