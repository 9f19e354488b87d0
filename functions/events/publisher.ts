/**
 * `outbox-publisher`: reads the table's stream and puts every new outbox record on the bus.
 * Escalation pages are put first. A failed PutEvents throws, so the stream batch is retried: nothing is lost, and consumers
 * are idempotent per event id for the duplicates a retry can cause.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { OUTBOX_ITEM_TYPE, outboxItem, type OutboxItem } from '../../shared/platform/events/model.js';
import { publish } from '../../shared/platform/events/publish.js';
import { workerHandler } from '../lib/observability.js';

const PAGE = 'incident.escalation_step';

export const handler = workerHandler('outbox-publisher', async (event: DynamoDBStreamEvent) => {
  const items: OutboxItem[] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.type?.S !== OUTBOX_ITEM_TYPE) continue;
    items.push(outboxItem.parse(unmarshall(image as Record<string, AttributeValue>)));
  }
  // Pages first (issue 33): on the bus, their notifier's invocation then starts before the other targets
  // of the batch's events (locally they share one thread). Nothing depends on the order of a batch's events:
  // EventBridge does not keep it, and webhooks order one instant's events by their rank.
  const pagesFirst = [...items.filter((item) => item.event_type === PAGE), ...items.filter((item) => item.event_type !== PAGE)];
  return { published: await publish(pagesFirst) };
}, (result) => `published ${result.published}`);
