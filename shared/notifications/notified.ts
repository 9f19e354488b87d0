/**
 * What a message to a person leaves on the incidents it stood for (issue 43 §4): a `notification`
 * timeline entry in each (one; several for a combined message of held pages), and, once sent, one
 * receipts' lookup item per entry under the provider's message id (`MESSAGE#<id>` / `ENTRY#…`), through
 * which delivery receipts (`phones/receipts.ts`) update each entry's status.
 */
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, keys } from '../platform/db/keys.js';
import { transactWrite, type TransactItem } from '../platform/db/ops.js';
import type { IncidentSnapshot } from '../platform/events/model.js';
import type { Channel } from '../channels/index.js';
import { notificationEntry, timelinePut } from '../incidents/timeline.js';
import type { PagedPerson } from '../paging/notify-person.js';

/** The lookup of a message by its provider id, for its receipts: kept 30 days. */
const MESSAGE_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** One incident a message stood for, and its paged step. */
export interface NotifiedIncident {
  incident: Pick<IncidentSnapshot, 'id' | 'status'>;
  step_order: number;
}

/**
 * Writes a message's timeline entry in each incident it stood for (one; several for a combined message,
 * issue 43 §4), and, sent, one receipts' lookup item per entry under the message's id. Best effort: a
 * lost entry never fails the page.
 */
export async function recordNotifications(notified: NotifiedIncident[], person: PagedPerson, channel: Channel, to: string, status: 'sent' | 'failed', messageId?: string) {
  const at = clock.nowIso();
  const items = notified.flatMap(({ incident, step_order }): TransactItem[] => {
    const entry = timelinePut(
      notificationEntry(
        { id: incident.id, status: incident.status },
        { channel: channel.type, address: channel.mask(to), user_id: person.user_id, user_name: person.name, status, step_order, message_id: messageId },
        at,
      ),
    );
    if (!messageId) return [entry];
    const entrySk = String(entry.Put!.Item![attributes.sk]);
    const lookup: TransactItem = {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.notificationMessageEntry(messageId, incident.id, entrySk),
          type: 'notification_message',
          incident_id: incident.id,
          entry_sk: entrySk,
          [attributes.ttl]: Math.floor(Date.parse(at) / 1000) + MESSAGE_RETENTION_SECONDS,
        },
        ConditionExpression: itemAbsent,
      },
    };
    return [entry, lookup];
  });
  await transactWrite(items).catch((error) =>
    console.warn(JSON.stringify({ level: 'WARN', message: 'A notification timeline entry was not written', incident_ids: notified.map(({ incident }) => incident.id), error: String(error) })),
  );
}

