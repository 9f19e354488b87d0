/**
 * The `person-notification` worker's domain (issue 43): the messages a page sends a person, one per rule
 * of theirs that fires (`paging/notify-person.ts` decides which) — those due at once when the page's
 * event arrives (the worker is a target of `incident.escalation_step`, beside the notifier, which e-mails
 * the bare addresses), the others when their schedule fires —, through the rule's channel, each carrying an acknowledge link that acknowledges as
 * them; or, with no usable rule, the e-mail to their account's address. Each message sent adds a
 * `notification` entry to the incident's timeline, and its provider message id a `MESSAGE#` lookup
 * item through which delivery receipts update the entry's status. Escalation never waits for a receipt.
 */
import { incidentLink } from '../platform/console-links.js';
import * as z from '../platform/zod.js';
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { clock } from '../platform/clock.js';
import { transactWrite, type TransactItem } from '../platform/db/ops.js';
import { outboxPut } from '../platform/events/outbox.js';
import { personNotification, type EventDetail, type IncidentSnapshot } from '../platform/events/model.js';
import { channelFor, type Channel, type OutgoingMessage } from '../channels/index.js';
import { newAcknowledgeLink, type PagedStep } from '../incidents/acknowledge-link.js';
import { replyCodeFor } from '../incidents/reply-codes.js';
import { dueRule, type PagedPerson, type PersonNotificationInput, type RuleToFire } from '../paging/notify-person.js';
import { incidentSnapshot } from '../incidents/snapshots.js';
import { deliverAtLeastOnce, DeliveryInProgress, type AtLeastOnceOptions, type AtLeastOnceOutcome, type GateDecision } from './delivery.js';
import { throttled, throttleGate } from './throttle.js';
import { settleEach } from '../platform/concurrency.js';
import { countMetric } from '../platform/observability/metrics.js';
import { planPersonPage } from '../paging/notify-person.js';
import { escalationEmail } from './emails.js';
import { pageSms, pageVoice } from './texts.js';
import { recordNotifications } from './notified.js';

/** What the `person-notification` worker is invoked with by a delayed rule's schedule (`paging/schedule-person.ts`). */
export const personNotificationInput = z.strictObject(personNotification.shape) satisfies z.ZodMiniType<PersonNotificationInput>;

/** One message of a page, ready for `deliverAtLeastOnce`. */
export interface PageMessage {
  channel: Channel;
  message: OutgoingMessage;
  records: TransactItem[];
  /** The delivery record's key within the event: `rule:<ruleId>` for a rule's message; the address (the default) for the fallback. */
  recipientKey?: string;
  /** A phone method's throttle (issue 43 §4): whether the page goes now or is held for a combined message. */
  gate?: () => Promise<GateDecision>;
  onSent: (messageId: string) => Promise<void>;
  onFailed: () => Promise<void>;
}

/** The incident as a page's messages tell it. */
export type PagedIncident = IncidentSnapshot;

const recordNotification = (incident: PagedIncident, step: PagedStep, person: PagedPerson, channel: Channel, to: string, status: 'sent' | 'failed', messageId?: string) =>
  recordNotifications([{ incident, step_order: step.step.step_order }], person, channel, to, status, messageId);

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
    message = escalationEmail({ incident, step: detail.step }, to, acknowledgeUrl, undefined, incidentLink(incident.id));
  } else {
    const code = await replyCodeFor(person.user_id, incident.id);
    const facts = { code, severity: incident.severity, title: incident.title, monitorName: incident.monitor_name, acknowledgeUrl };
    message = { to, text: channel.type === 'sms' ? pageSms(facts) : pageVoice(facts), tags };
  }
  const recipientKey = fire ? `rule:${fire.rule.id}` : undefined;
  const gate =
    fire && recipientKey && throttled(fire.method.method_type)
      ? throttleGate({
          contact_method_id: fire.method.id,
          method_type: fire.method.method_type,
          event_id: detail.event_id,
          recipient_key: recipientKey,
          incident_id: incident.id,
          step_order: detail.step.step_order,
          paged_at: detail.occurred_at,
          user_id: person.user_id,
          user_name: person.name,
          email: person.email,
        })
      : undefined;
  return {
    channel,
    message,
    records: [link.record],
    ...(recipientKey ? { recipientKey } : {}),
    ...(gate ? { gate } : {}),
    onSent: (messageId) => recordNotification(incident, detail, person, channel, to, 'sent', messageId || undefined),
    onFailed: () => recordNotification(incident, detail, person, channel, to, 'failed'),
  };
}

/** Sends one message at least once; a failure (other than another invocation holding it) is on the timeline. */
async function deliver(eventId: string, page: PageMessage, options: AtLeastOnceOptions): Promise<AtLeastOnceOutcome> {
  try {
    return await deliverAtLeastOnce(eventId, page.channel, page.message, page.records, { ...options, recipientKey: page.recipientKey, gate: page.gate, onSent: page.onSent });
  } catch (error) {
    if (!(error instanceof DeliveryInProgress)) await page.onFailed();
    throw error;
  }
}

/** How many of a page's messages to people are sent at once. */
const SEND_CONCURRENCY = 8;

export interface PeoplePaged {
  sent: number;
  duplicates: number;
  possible_duplicates: number;
  /** Held past a phone method's throttle, for its combined message (issue 43 §4); only when some were. */
  held?: number;
}

/**
 * The page's event: each person's rules due at once (the later ones are the escalation scheduler's to
 * schedule), or, with no usable rule for the incident's urgency, the e-mail to their account's address.
 * One failed message does not stop the others; the failure is thrown at the end so the event is
 * redelivered, and only unsent messages go again. A version-1 event names no person (the notifier
 * e-mails its addresses): nothing to do.
 */
export async function pagePeople(detail: EventDetail<'incident.escalation_step'>, options: AtLeastOnceOptions): Promise<PeoplePaged> {
  const people = (detail.recipients ?? []).flatMap((recipient) => (recipient.kind === 'person' ? [recipient] : []));
  const delayed: EventDetail<'person.notifications_delayed'>['notifications'] = [];
  const planned = await Promise.all(
    people.map(async (recipient) => {
      const person: PagedPerson = { user_id: recipient.user_id, name: recipient.name, email: recipient.email };
      const plan = await planPersonPage(person, detail.incident, detail.occurred_at);
      if (plan.fallback) return [{ person, fire: undefined }];
      for (const { rule } of plan.later) {
        delayed.push({
          event_id: detail.event_id,
          incident_id: detail.incident.id,
          step_order: detail.step.step_order,
          paged_at: detail.occurred_at,
          user_id: person.user_id,
          user_name: person.name,
          email: person.email,
          rule_id: rule.id,
          at: new Date(Date.parse(detail.occurred_at) + rule.delay_minutes * 60_000).toISOString(),
        });
      }
      return plan.now.map((fire) => ({ person, fire }));
    }),
  );
  // The rules due later, for the escalation scheduler (`paging/schedule-person.ts`); a redelivery writes
  // the event again, and finds the schedules made.
  if (delayed.length > 0) await transactWrite([outboxPut('person.notifications_delayed', { notifications: delayed }, clock.nowIso())]);
  const outcomes = await settleEach(planned.flat(), SEND_CONCURRENCY, async ({ person, fire }) =>
    deliver(detail.event_id, await personMessage(detail, detail.incident, person, fire), options),
  );
  const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') countMetric('NotificationFailed', { kind: 'escalation' });
    else if (outcome.value === 'held') countMetric('NotificationHeld', { kind: 'escalation' });
    else if (outcome.value !== 'duplicate') countMetric('NotificationSent', { kind: 'escalation' });
  }
  if (failures.length > 0) throw new AggregateError(failures.map((failure) => failure.reason), `${failures.length} of ${outcomes.length} messages to people failed`);
  const count = (value: AtLeastOnceOutcome) => outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value === value).length;
  const held = count('held');
  return { sent: count('sent') + count('resent'), duplicates: count('duplicate'), possible_duplicates: count('resent'), ...(held > 0 ? { held } : {}) };
}

/**
 * A person's delayed rule at its time. Sent (at least once: the
 * delivery record is keyed by the page's event and the rule) only if the incident is neither
 * acknowledged nor resolved since the page, and the rule and its method are still there and usable.
 */
export async function sendPersonRule(input: PersonNotificationInput, options: AtLeastOnceOptions): Promise<string> {
  const due = await dueRule(input);
  if ('skipped' in due) return due.skipped;
  const person: PagedPerson = { user_id: input.user_id, name: input.user_name, email: input.email };
  const step = { event_id: input.event_id, occurred_at: input.paged_at, incident: { id: input.incident_id }, step: { step_order: input.step_order, delay_minutes: due.fire.rule.delay_minutes } };
  return deliver(input.event_id, await personMessage(step, incidentSnapshot(due.incident), person, due.fire), options);
}
