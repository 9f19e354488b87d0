/** Which e-mails an event asks for (subscribers, invitations, confirmations, pages to bare addresses), sent once each; people are reached by `pages.ts`. */
import { incidentLink } from '../platform/console-links.js';
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { eventDetails, type EventType } from '../platform/events/model.js';
import { newUnsubscribeLink, subscribersOf } from '../subscribers/service.js';
import { rehashUnsubscribeToken } from '../subscribers/repository.js';
import { countMetric } from '../platform/observability/metrics.js';
import { deliverAtLeastOnce, deliverOnce, type AtLeastOnceOptions } from './delivery.js';
import { settleEach } from '../platform/concurrency.js';
import { confirmationEmail, escalationEmail, inviteEmail, subscriberEmail, webhookDisabledEmail, type Email } from './emails.js';
import { getAccount } from '../accounts/repository.js';
import { newConfirmationLink } from '../subscribers/confirmation.js';
import { newAcknowledgeLink } from '../incidents/acknowledge-link.js';
import type { TransactItem } from '../platform/db/ops.js';
import { accountHolders, admitOutsidePage, newStopPagingLink, type Admission } from '../paging/outside.js';
import { emailChannel } from '../channels/email.js';

const KIND: Record<EventType, string> = {
  'incident.created': 'subscriber',
  'incident.status_changed': 'subscriber',
  'incident.resolved': 'subscriber',
  'incident.note_added': 'subscriber',
  'incident.acknowledged': 'none',
  'incident.escalation_restarted': 'subscriber',
  'maintenance_window.ended': 'none',
  'incident.updated': 'none',
  'incident.escalation_step': 'escalation',
  'team.invite_created': 'invite',
  'subscriber.confirmation_requested': 'confirmation',
  'contact_method.verification_requested': 'none',
  'monitor.team_changed': 'none',
  'person.notifications_delayed': 'none',
  'person.messages_held': 'none',
  'webhook.disabled': 'webhook',
};

/** An e-mail, and the records to write with its delivery (an acknowledge link). */
interface Outgoing {
  email: Email;
  records?: TransactItem[];
  /** A page to an outside address: whether it may go (decided once per event and address), before it is sent. */
  admit?: () => Promise<Admission>;
}

async function emailsFor(type: EventType, rawDetail: unknown): Promise<{ eventId: string; emails: Outgoing[] }> {
  const apiUrl = requireEnv(env.publicApiUrl).replace(/\/$/, '');
  switch (type) {
    case 'incident.created':
    case 'incident.status_changed':
    case 'incident.resolved':
    case 'incident.note_added': {
      const detail = eventDetails[type].parse(rawDetail);
      // Opened inside a maintenance window (issue 45 §1): nobody is e-mailed now; at its end, if still open and unacknowledged.
      if ('maintenance' in detail && detail.maintenance) return { eventId: detail.event_id, emails: [] };
      const subscribers = await subscribersOf(detail.incident.monitor_id);
      // A subscription from before tokens were hashed has its token rehashed first (once; its old links keep working).
      const rehashed = await settleEach(subscribers.filter((subscriber) => subscriber.unsubscribe_token), SEND_CONCURRENCY, (subscriber) =>
        rehashUnsubscribeToken(subscriber, detail.incident.monitor_name),
      );
      for (const outcome of rehashed) if (outcome.status === 'rejected') throw outcome.reason;
      return {
        eventId: detail.event_id,
        emails: subscribers.map((subscriber) => {
          const link = newUnsubscribeLink(subscriber, detail.incident.monitor_name);
          return { email: subscriberEmail(type, detail, subscriber, `${apiUrl}/unsubscribe/${link.token}`), records: [link.record] };
        }),
      };
    }
    case 'incident.escalation_restarted': {
      // Issue 45 §1: an incident held by maintenance, paging at its end: subscribers get its "new incident" e-mail now.
      const detail = eventDetails[type].parse(rawDetail);
      if (detail.reason !== 'maintenance_ended') return { eventId: detail.event_id, emails: [] };
      return emailsFor('incident.created', { ...detail, escalation: null });
    }
    case 'subscriber.confirmation_requested': {
      const detail = eventDetails[type].parse(rawDetail);
      const link = newConfirmationLink(detail);
      return { eventId: detail.event_id, emails: [{ email: confirmationEmail(detail, `${apiUrl}/confirm/${link.token}`), records: [link.record] }] };
    }
    case 'team.invite_created': {
      const detail = eventDetails[type].parse(rawDetail);
      return { eventId: detail.event_id, emails: [{ email: inviteEmail(detail, apiUrl) }] };
    }
    case 'incident.escalation_step': {
      const detail = eventDetails[type].parse(rawDetail);
      const bareAddress = (to: string): Outgoing => {
        const link = newAcknowledgeLink(detail, { address: to });
        const acknowledgeUrl = `${apiUrl}/acknowledge/${link.token}`;
        const stop = newStopPagingLink(detail, to);
        return {
          email: escalationEmail(detail, to, acknowledgeUrl, `${apiUrl}/stop-paging/${stop.token}`),
          records: [link.record, stop.record],
          admit: () => admitOutsidePage(detail, to),
        };
      };
      if (!detail.recipients) {
        // Version 1 (written before issue 43, redelivered): every address e-mailed, the people's as account holders.
        const people = accountHolders(detail);
        return {
          eventId: detail.event_id,
          emails: detail.step.emails.map((to) => {
            if (!people.has(to.toLowerCase())) return bareAddress(to);
            const link = newAcknowledgeLink(detail, { address: to });
            return { email: escalationEmail(detail, to, `${apiUrl}/acknowledge/${link.token}`, undefined, incidentLink(detail.incident.id)), records: [link.record] };
          }),
        };
      }
      // A bare address is an outside address: it carries a stop link and is admitted first
      // (`paging/outside.ts`). A person is paged by their notification rules, by the person-notification
      // worker, another target of the event (`pages.ts`), so no SMS or call waits behind these e-mails.
      return { eventId: detail.event_id, emails: detail.recipients.flatMap((recipient) => (recipient.kind === 'address' ? [bareAddress(recipient.address)] : [])) };
    }
    case 'webhook.disabled': {
      const detail = eventDetails[type].parse(rawDetail);
      // Only the owner's own account address: never an address the webhook or anyone else names.
      const account = await getAccount(detail.webhook.owner_id);
      return { eventId: detail.event_id, emails: account ? [{ email: webhookDisabledEmail(detail, account.email, apiUrl) }] : [] };
    }
    case 'contact_method.verification_requested':
    case 'incident.acknowledged':
    case 'maintenance_window.ended':
    case 'incident.updated':
    case 'monitor.team_changed':
    case 'person.notifications_delayed':
    case 'person.messages_held':
      return { eventId: '', emails: [] };
  }
}

export interface NotifyResult {
  sent: number;
  duplicates: number;
  /** Escalation pages sent again after a send whose fate was unknown: each may have arrived twice. */
  possible_duplicates: number;
  /** Pages to outside addresses not sent (stopped, or over the sending account's daily quota; on the timeline); only when there were. */
  withheld?: number;
}

/** How many e-mails are sent at once (SES allows 14 a second by default; throttled sends wait and retry). */
export const SEND_CONCURRENCY = 8;

/**
 * Sends every e-mail the event asks for, a few at a time. One failed recipient does not stop the
 * others; the failure is thrown at the end so the event is redelivered, and only unsent e-mails
 * go again.
 */
export async function notify(type: EventType, detail: unknown, options: AtLeastOnceOptions): Promise<NotifyResult> {
  const { eventId, emails } = await emailsFor(type, detail);
  // Pages are sent at least once (a lost page is worse than a second one); other e-mails at most once.
  const atLeastOnce = KIND[type] === 'escalation';
  const outcomes = await settleEach(emails, SEND_CONCURRENCY, async ({ email, records, admit }) => {
    if (admit && (await admit()) !== 'admitted') return 'withheld' as const;
    return atLeastOnce ? deliverAtLeastOnce(eventId, emailChannel, email, records, options) : deliverOnce(eventId, emailChannel, email, records);
  });
  const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') countMetric('NotificationFailed', { kind: KIND[type] });
    else if (outcome.value === 'sent' || outcome.value === 'resent') countMetric('NotificationSent', { kind: KIND[type] });
  }
  if (failures.length > 0) throw new AggregateError(failures.map((failure) => failure.reason), `${failures.length} of ${emails.length} e-mails failed`);
  const count = (...values: string[]) => outcomes.filter((outcome) => outcome.status === 'fulfilled' && values.includes(outcome.value)).length;
  const withheld = count('withheld');
  return { sent: count('sent', 'resent'), duplicates: count('duplicate'), possible_duplicates: count('resent'), ...(withheld > 0 ? { withheld } : {}) };
}
