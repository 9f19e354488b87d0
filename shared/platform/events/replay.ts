/**
 * Re-publishing outbox records by time: what an operator does with a stream batch that reached the
 * publisher's on-failure queue (which names shard and sequence numbers, not events). Outbox records
 * live 7 days, partitioned by the hour they occurred in (16 shards each), so a window costs
 * 16 Queries per hour it touches and never a Scan.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { attributes, OUTBOX_SHARDS, outboxPartition } from '../db/keys.js';
import { outboxItem, type EventType, type OutboxItem } from './model.js';
import { publish } from './publish.js';

const HOUR = 60 * 60 * 1000;

/** The `yyyy-mm-ddThh` hours from `from` to `to`, both included. */
function hoursOf(from: Date, to: Date): string[] {
  const hours: string[] = [];
  for (let at = Math.floor(from.getTime() / HOUR) * HOUR; at <= to.getTime(); at += HOUR) hours.push(new Date(at).toISOString().slice(0, 13));
  return hours;
}

/** Every outbox record that occurred in [from, to], oldest first. */
export async function outboxBetween(from: Date, to: Date, types?: readonly EventType[]): Promise<OutboxItem[]> {
  if (!(from.getTime() <= to.getTime())) throw new Error('The window must end after it starts');
  if (to.getTime() - from.getTime() > 8 * 24 * HOUR) throw new Error('The window may span at most 8 days (outbox records live 7)');
  const found: { at: string; item: OutboxItem }[] = [];
  for (const hour of hoursOf(from, to)) {
    await Promise.all(
      [...OUTBOX_SHARDS].map(async (shard) => {
        let start: Record<string, unknown> | undefined;
        do {
          const page = await db().send(
            new QueryCommand({
              TableName: tableName(),
              KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
              ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk },
              // Sort keys are `<occurred_at>#<event id>`: `~` sorts after any event id.
              ExpressionAttributeValues: { ':pk': outboxPartition(hour, shard), ':from': from.toISOString(), ':to': `${to.toISOString()}~` },
              ConsistentRead: true,
              ExclusiveStartKey: start,
            }),
          );
          for (const item of page.Items ?? []) found.push({ at: String(item[attributes.sk]), item: outboxItem.parse(item) });
          start = page.LastEvaluatedKey;
        } while (start);
      }),
    );
  }
  return found
    .sort((a, b) => a.at.localeCompare(b.at))
    .map(({ item }) => item)
    .filter((item) => !types?.length || types.includes(item.event_type));
}

export interface ReplayResult {
  from: string;
  to: string;
  events: { event_type: EventType; event_id: string; occurred_at: string }[];
  published: number;
}

/** Puts the outbox records of [from, to] on the bus again (none with `dryRun`). */
export async function replayWindow(from: Date, to: Date, options: { dryRun?: boolean; types?: readonly EventType[] } = {}): Promise<ReplayResult> {
  const items = await outboxBetween(from, to, options.types);
  const published = options.dryRun ? 0 : await publish(items);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    events: items.map((item) => ({ event_type: item.event_type, event_id: String(item.detail.event_id), occurred_at: String(item.detail.occurred_at) })),
    published,
  };
}
