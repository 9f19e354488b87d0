/**
 * Putting outbox records on the bus: the outbox publisher does it for each stream batch, the
 * replay tool for the records of a time window. Consumers are idempotent per `event_id`, so a
 * record published twice is harmless.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { env, eventBus } from '../../system.js';
import { sandboxClient } from '../aws-client.js';
import { requireEnv } from '../config.js';
import type { OutboxItem } from './model.js';

const events = sandboxClient(() => new EventBridgeClient({}));

/** PutEvents takes at most 10 entries. */
const BATCH = 10;

export const busEntry = (item: OutboxItem): PutEventsRequestEntry => ({
  EventBusName: requireEnv(env.eventBusName),
  Source: eventBus.source,
  DetailType: item.event_type,
  Detail: JSON.stringify(item.detail),
  Time: new Date(String(item.detail.occurred_at)),
});

/** Puts every record on the bus, 10 per call; throws if any entry failed (the caller retries all). */
export async function publish(items: readonly OutboxItem[]): Promise<number> {
  const entries = items.map(busEntry);
  for (let start = 0; start < entries.length; start += BATCH) {
    const result = await events().send(new PutEventsCommand({ Entries: entries.slice(start, start + BATCH) }));
    if (result.FailedEntryCount) {
      const reasons = (result.Entries ?? []).filter((entry) => entry.ErrorCode).map((entry) => entry.ErrorCode);
      throw new Error(`PutEvents failed for ${result.FailedEntryCount} entries: ${reasons.join(', ')}`);
    }
  }
  return entries.length;
}
