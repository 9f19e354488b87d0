/**
 * `outbox-publisher`: reads the table's stream and puts every new outbox record on the bus.
 * A failed PutEvents throws, so the stream batch is retried: nothing is lost, and consumers
 * are idempotent per event id for the duplicates a retry can cause.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { OUTBOX_ITEM_TYPE, outboxItem, type OutboxItem } from '../../shared/platform/events/model.js';
import { publish } from '../../shared/platform/events/publish.js';
import { workerHandler } from '../lib/observability.js';

export const handler = workerHandler('outbox-publisher', async (event: DynamoDBStreamEvent) => {
  const items: OutboxItem[] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.type?.S !== OUTBOX_ITEM_TYPE) continue;
    items.push(outboxItem.parse(unmarshall(image as Record<string, AttributeValue>)));
  }
  return { published: await publish(items) };
}, (result) => `published ${result.published}`);
