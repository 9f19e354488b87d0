/** Which e-mails an event asks for, sent once each. */
import { env } from '../system.js';
import { requireEnv } from '../platform/config.js';
import { eventDetails, type EventType } from '../platform/events/model.js';
import { newUnsubscribeLink, subscribersOf } from '../subscribers/service.js';
import { rehashUnsubscribeToken } from '../subscribers/repository.js';
import { countMetric } from '../platform/observability/metrics.js';
import { deliverAtLeastOnce, deliverOnce, deliverOnceThrough, type AtLeastOnceOptions } from './delivery.js';
import { settleEach } from '../platform/concurrency.js';
import { confirmationEmail, escalationEmail, inviteEmail, subscriberEmail, verificationEmail, verificationText, webhookDisabledEmail, type Email } from './emails.js';
import { channelFor, type Channel, type OutgoingMessage } from '../channels/index.js';
import { getAccount } from '../accounts/repository.js';
import { newConfirmationLink } from '../subscribers/confirmation.js';
import { newAcknowledgeLink } from '../incidents/acknowledge-link.js';
import type { TransactItem } from '../platform/db/ops.js';
import { accountHolders, admitOutsidePage, newStopPagingLink, type Admission } from '../paging/outside.js';

const KIND: Record<EventType, string> = {
  'incident.created': 'subscriber',
  'incident.status_changed': 'subscriber',
  'incident.resolved': 'subscriber',
  'incident.note_added': 'subscriber',
  'incident.acknowledged': 'none',
  'incident.updated': 'none',
  'incident.escalation_step': 'escalation',
  'team.invite_created': 'invite',
  'subscriber.confirmation_requested': 'confirmation',
  'contact_method.verification_requested': 'verification',
  'monitor.team_changed': 'none',
  'webhook.disabled': 'webhook',
};

/** An e-mail, and the records to write with its delivery (an acknowledge link). */
interface Outgoing {
  email: Email;
  records?: TransactItem[];
  /** A page to an outside address: whether it may go (decided once per event and address), before it is sent. */
  admit?: () => Promise<Admission>;
  /** Sent through another channel than e-mail (SMS, voice), once: `email` is then only its record's description. */
  through?: { channel: Channel; message: OutgoingMessage };
}

async function emailsFor(type: EventType, rawDetail: unknown): Promise<{ eventId: string; emails: Outgoing[] }> {
  const apiUrl = requireEnv(env.publicApiUrl).replace(/\/$/, '');
  switch (type) {
    case 'incident.created':
    case 'incident.status_changed':
    case 'incident.resolved':
    case 'incident.note_added': {
      const detail = eventDetails[type].parse(rawDetail);
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
    case 'subscriber.confirmation_requested': {
      const detail = eventDetails[type].parse(rawDetail);
      const link = newConfirmationLink(detail);
      return { eventId: detail.event_id, emails: [{ email: confirmationEmail(detail, `${apiUrl}/confirm/${link.token}`), records: [link.record] }] };
    }
    case 'contact_method.verification_requested': {
      // The code goes through the method itself (issue 43 §2): e-mail as every e-mail goes, SMS and voice through their channel.
      const detail = eventDetails[type].parse(rawDetail);
      const email = verificationEmail(detail);
      const { type: channel, address, id } = detail.contact_method;
      if (channel === 'email') return { eventId: detail.event_id, emails: [{ email }] };
      const text = channel === 'voice' ? `${verificationText(detail.code.split('').join(' '))}. Again: ${detail.code.split('').join(' ')}.` : verificationText(detail.code);
      return { eventId: detail.event_id, emails: [{ email, through: { channel: channelFor(channel), message: { to: address, text, tags: { kind: 'verification', contact_method: id } } } }] };
    }
    case 'team.invite_created': {
      const detail = eventDetails[type].parse(rawDetail);
      return { eventId: detail.event_id, emails: [{ email: inviteEmail(detail, apiUrl) }] };
    }
    case 'incident.escalation_step': {
      const detail = eventDetails[type].parse(rawDetail);
      // A person (an account holder) is paged as they are; any other address carries a stop link and is admitted first (`paging/outside.ts`).
      const people = accountHolders(detail);
      return {
        eventId: detail.event_id,
        emails: detail.step.emails.map((to) => {
          const link = newAcknowledgeLink(detail, to);
          const acknowledgeUrl = `${apiUrl}/acknowledge/${link.token}`;
          if (people.has(to.toLowerCase())) return { email: escalationEmail(detail, to, acknowledgeUrl), records: [link.record] };
          const stop = newStopPagingLink(detail, to);
          return {
            email: escalationEmail(detail, to, acknowledgeUrl, `${apiUrl}/stop-paging/${stop.token}`),
            records: [link.record, stop.record],
            admit: () => admitOutsidePage(detail, to),
          };
        }),
      };
    }
    case 'webhook.disabled': {
      const detail = eventDetails[type].parse(rawDetail);
      // Only the owner's own account address: never an address the webhook or anyone else names.
      const account = await getAccount(detail.webhook.owner_id);
      return { eventId: detail.event_id, emails: account ? [{ email: webhookDisabledEmail(detail, account.email, apiUrl) }] : [] };
    }
    case 'incident.acknowledged':
    case 'incident.updated':
    case 'monitor.team_changed':
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
export async function notify(type: EventType, detail: unknown, options: AtLeastOnceOptions = {}): Promise<NotifyResult> {
  const { eventId, emails } = await emailsFor(type, detail);
  // Pages are sent at least once (a lost page is worse than a second one); other e-mails at most once.
  const atLeastOnce = KIND[type] === 'escalation';
  const outcomes = await settleEach(emails, SEND_CONCURRENCY, async ({ email, records, admit, through }) => {
    if (admit && (await admit()) !== 'admitted') return 'withheld' as const;
    if (through) return deliverOnceThrough(eventId, through.channel, through.message);
    return atLeastOnce ? deliverAtLeastOnce(eventId, email, records, options) : deliverOnce(eventId, email, records);
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
