/**
 * The transactional outbox: a state change that must notify writes an outbox record in the
 * same DynamoDB transaction. The outbox publisher reads the table's stream and puts each
 * record on the event bus, so no event is lost between the write and its publication.
 */
import { randomUUID } from 'node:crypto';
import { tableName } from '../db/client.js';
import { attributes, itemAbsent, keys } from '../db/keys.js';
import type { TransactItem } from '../db/ops.js';
import { eventDetails, eventVersions, OUTBOX_ITEM_TYPE, type EventDetail, type EventPayload, type EventType } from './model.js';

/**
 * Outbox records are kept 7 days after writing: the stream keeps changes for 24 h only, so an event
 * whose stream batch was dead-lettered can still be re-published from its record for a week.
 */
export const OUTBOX_RETENTION_SECONDS = 7 * 24 * 60 * 60;

export { OUTBOX_ITEM_TYPE, outboxItem } from './model.js';

/** The transaction item that records `type` with `payload`, validated against its schema. */
export function outboxPut<T extends EventType>(type: T, payload: EventPayload<T>, occurredAt: string): TransactItem {
  const eventId = randomUUID();
  const detail = eventDetails[type].parse({ version: eventVersions[type] ?? 1, event_id: eventId, occurred_at: occurredAt, ...payload }) as EventDetail<T>;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.outbox(eventId, detail.occurred_at),
        type: OUTBOX_ITEM_TYPE,
        event_type: type,
        detail,
        [attributes.ttl]: Math.floor(Date.parse(occurredAt) / 1000) + OUTBOX_RETENTION_SECONDS,
      },
      ConditionExpression: itemAbsent,
    },
  };
}
