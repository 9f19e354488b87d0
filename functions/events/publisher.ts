/**
 * `outbox-publisher`: reads the table's stream and puts every new outbox record on the bus.
 * A failed PutEvents throws, so the stream batch is retried: nothing is lost, and consumers
 * are idempotent per event id for the duplicates a retry can cause.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { env, eventBus } from '../../infra/system.js';
import { requireEnv } from '../../shared/config.js';
import { OUTBOX_ITEM_TYPE, outboxItem } from '../../shared/events/model.js';
import { workerHandler } from '../lib/observability.js';

const events = new EventBridgeClient({});

/** PutEvents takes at most 10 entries. */
const BATCH = 10;

export const handler = workerHandler('outbox-publisher', async (event: DynamoDBStreamEvent) => {
  const entries: PutEventsRequestEntry[] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.type?.S !== OUTBOX_ITEM_TYPE) continue;
    const item = outboxItem.parse(unmarshall(image as Record<string, AttributeValue>));
    entries.push({
      EventBusName: requireEnv(env.eventBusName),
      Source: eventBus.source,
      DetailType: item.event_type,
      Detail: JSON.stringify(item.detail),
      Time: new Date(String(item.detail.occurred_at)),
    });
  }
  for (let start = 0; start < entries.length; start += BATCH) {
    const result = await events.send(new PutEventsCommand({ Entries: entries.slice(start, start + BATCH) }));
    if (result.FailedEntryCount) {
      const reasons = (result.Entries ?? []).filter((entry) => entry.ErrorCode).map((entry) => entry.ErrorCode);
      throw new Error(`PutEvents failed for ${result.FailedEntryCount} entries: ${reasons.join(', ')}`);
    }
  }
  return { published: entries.length };
}, (result) => `published ${result.published}`);
