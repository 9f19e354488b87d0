/**
 * The messages a page sends a person (issue 43): one per rule of theirs that fires (`paging/notify-person.ts`
 * decides which), through the rule's channel, each carrying an acknowledge link that acknowledges as
 * them; or, with no usable rule, the e-mail to their account's address. Each message sent adds a
 * `notification` entry to the incident's timeline, and its provider message id a `MESSAGE#` lookup
 * item through which delivery receipts update the entry's status. Escalation never waits for a receipt.
 */
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, keys } from '../platform/db/keys.js';
import { transactWrite, type TransactItem } from '../platform/db/ops.js';
import type { IncidentSnapshot } from '../platform/events/model.js';
import { channelFor, type Channel, type OutgoingMessage } from '../channels/index.js';
import { newAcknowledgeLink, type PagedStep } from '../incidents/acknowledge-link.js';
import { replyCodeFor } from '../incidents/reply-codes.js';
import { notificationEntry, timelinePut } from '../incidents/timeline.js';
import { dueRule, type PagedPerson, type PersonNotificationInput, type RuleToFire } from '../paging/notify-person.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import { deliverAtLeastOnce, DeliveryInProgress, type AtLeastOnceOptions } from './delivery.js';
import { escalationEmail } from './emails.js';
import { pageSms, pageVoice } from './texts.js';

/** One message of a page, ready for `deliverAtLeastOnce`. */
export interface PageMessage {
  channel: Channel;
  message: OutgoingMessage;
  records: TransactItem[];
  /** The delivery record's key within the event: `rule:<ruleId>` for a rule's message; the address (the default) for the fallback. */
  recipientKey?: string;
  onSent: (messageId: string) => Promise<void>;
  onFailed: () => Promise<void>;
}

/** The incident as a page's messages tell it. */
export type PagedIncident = IncidentSnapshot;

/** The lookup of a message by its provider id, for its receipts: kept 30 days. */
const MESSAGE_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** Writes the message's timeline entry (and, sent, its receipts' lookup). Best effort: a lost entry never fails the page. */
async function recordNotification(incident: PagedIncident, step: PagedStep, person: PagedPerson, channel: Channel, to: string, status: 'sent' | 'failed', messageId?: string) {
  const at = clock.nowIso();
  const entry = timelinePut(
    notificationEntry(
      { id: incident.id, status: incident.status },
      { channel: channel.type, address: channel.mask(to), user_id: person.user_id, user_name: person.name, status, step_order: step.step.step_order, message_id: messageId },
      at,
    ),
  );
  const lookup: TransactItem[] = messageId
    ? [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.notificationMessage(messageId),
              type: 'notification_message',
              incident_id: incident.id,
              entry_sk: entry.Put!.Item![attributes.sk],
              [attributes.ttl]: Math.floor(Date.parse(at) / 1000) + MESSAGE_RETENTION_SECONDS,
            },
            ConditionExpression: itemAbsent,
          },
        },
      ]
    : [];
  await transactWrite([entry, ...lookup]).catch((error) => console.warn(JSON.stringify({ level: 'WARN', message: 'A notification timeline entry was not written', incident_id: incident.id, error: String(error) })));
}

/** The message of one rule (or, `rule` absent, the fallback e-mail to the account's address). */
export async function personMessage(
  detail: PagedStep & { step: { step_order: number; delay_minutes: number } },
  incident: PagedIncident,
  person: PagedPerson,
  fire: RuleToFire | undefined,
): Promise<PageMessage> {
  const apiUrl = requireEnv(env.publicApiUrl).replace(/\/$/, '');
  const channel = channelFor(fire?.method.method_type ?? 'email');
  const to = fire?.method.address ?? person.email;
  const link = newAcknowledgeLink(detail, { user_id: person.user_id, address: to });
  const acknowledgeUrl = `${apiUrl}/acknowledge/${link.token}`;
  const tags = { kind: 'escalation', incident: incident.id, step: String(detail.step.step_order) };
  let message: OutgoingMessage;
  if (channel.type === 'email') {
    message = escalationEmail({ incident, step: detail.step }, to, acknowledgeUrl);
  } else {
    const code = await replyCodeFor(person.user_id, incident.id);
    const facts = { code, severity: incident.severity, title: incident.title, monitorName: incident.monitor_name, acknowledgeUrl };
    message = { to, text: channel.type === 'sms' ? pageSms(facts) : pageVoice(facts), tags };
  }
  return {
    channel,
    message,
    records: [link.record],
    ...(fire ? { recipientKey: `rule:${fire.rule.id}` } : {}),
    onSent: (messageId) => recordNotification(incident, detail, person, channel, to, 'sent', messageId || undefined),
    onFailed: () => recordNotification(incident, detail, person, channel, to, 'failed'),
  };
}

/**
 * The `person-notification` worker: a person's delayed rule at its time. Sent (at least once: the
 * delivery record is keyed by the page's event and the rule) only if the incident is neither
 * acknowledged nor resolved since the page, and the rule and its method are still there and usable.
 */
export async function sendPersonRule(input: PersonNotificationInput, options: AtLeastOnceOptions = {}): Promise<string> {
  const due = await dueRule(input);
  if ('skipped' in due) return due.skipped;
  const person: PagedPerson = { user_id: input.user_id, name: input.user_name, email: input.email };
  const step = { event_id: input.event_id, occurred_at: input.paged_at, incident: { id: input.incident_id }, step: { step_order: input.step_order, delay_minutes: due.fire.rule.delay_minutes } };
  const page = await personMessage(step, incidentSnapshot(due.incident), person, due.fire);
  try {
    return await deliverAtLeastOnce(input.event_id, page.channel, page.message, page.records, { ...options, recipientKey: page.recipientKey, onSent: page.onSent });
  } catch (error) {
    if (!(error instanceof DeliveryInProgress)) await page.onFailed();
    throw error;
  }
}
