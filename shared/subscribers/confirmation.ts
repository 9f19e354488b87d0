/**
 * Double opt-in. Subscribing writes the subscription `pending` with a `subscriber.confirmation_requested`
 * event; the notifier e-mails the address one link with a random token (256 bits), written, as its
 * SHA-256 only, with the e-mail's delivery record. Opening the link (GET) only shows what it confirms;
 * its page's button (POST) confirms, in one transaction that uses the link up (unused, unexpired: 7
 * days) and confirms the subscription (still there, still pending). Nothing but that one e-mail goes to
 * a pending address.
 */
import { clock } from '../platform/clock.js';
import { tableName } from '../platform/db/client.js';
import { itemAbsent, itemPresent, keys } from '../platform/db/keys.js';
import { transactOutcome, type TransactItem } from '../platform/db/ops.js';
import type { EventDetail } from '../platform/events/model.js';
import { linkTokenHash, newEmailedLink, readEmailedLink } from '../platform/emailed-link.js';
import { confirmationLinkItem, type ConfirmationLink } from './model.js';

/** A confirmation link works for 7 days. */
export const CONFIRMATION_LINK_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;


/** A new link for the subscription of the event: the token for the e-mail, the record to write with its delivery. */
export function newConfirmationLink(detail: EventDetail<'subscriber.confirmation_requested'>): { token: string; record: TransactItem } {
  return newEmailedLink(
    keys.subscriptionConfirmation,
    CONFIRMATION_LINK_VALIDITY_MS,
    {
      type: 'subscription_confirmation',
      monitor_id: detail.subscription.monitor_id,
      monitor_name: detail.subscription.monitor_name,
      subscriber_id: detail.subscription.id,
      email: detail.subscription.email,
      event_id: detail.event_id,
    },
    itemAbsent,
  );
}

/** What a confirmation link leads to, for its page. */
export type ConfirmationState =
  | { state: 'unknown' }
  | { state: 'used' | 'expired' | 'valid' | 'confirmed'; link: ConfirmationLink };

async function readLink(token: string): Promise<ConfirmationLink | undefined> {
  const item = await readEmailedLink(keys.subscriptionConfirmation, token);
  return item ? confirmationLinkItem.parse(item) : undefined;
}

/** The state of a link as read (DynamoDB deletes expired items late: the expiry is compared here too). */
function stateOf(link: ConfirmationLink | undefined, now: Date): ConfirmationState {
  if (!link) return { state: 'unknown' };
  if (link.used_at) return { state: 'used', link };
  if (Date.parse(link.expires_at) <= now.getTime()) return { state: 'expired', link };
  return { state: 'valid', link };
}

/** Opening a link (GET): what it would confirm. Never confirms (mail scanners open links). */
export async function inspectConfirmation(token: string): Promise<ConfirmationState> {
  return stateOf(await readLink(token), clock.now());
}

/**
 * The page's button (POST): uses the link up and confirms the subscription, in one transaction on the
 * conditions that the link is unused and unexpired and the subscription still there and pending. A
 * subscription removed meanwhile makes the link `unknown` (not valid).
 */
export async function confirmSubscription(token: string): Promise<ConfirmationState> {
  const now = clock.now();
  const read = stateOf(await readLink(token), now);
  if (read.state !== 'valid') return read;
  const { link } = read;
  const { outcome } = await transactOutcome<'link' | 'subscription'>([
    [
      'link',
      {
        Update: {
          TableName: tableName(),
          Key: keys.subscriptionConfirmation(linkTokenHash(token)),
          UpdateExpression: 'SET used_at = :now',
          ConditionExpression: `${itemPresent} AND attribute_not_exists(used_at) AND expires_at > :now`,
          ExpressionAttributeValues: { ':now': now.toISOString() },
        },
      },
    ],
    [
      'subscription',
      {
        Update: {
          TableName: tableName(),
          Key: keys.subscriber(link.monitor_id, link.subscriber_id),
          UpdateExpression: 'SET #status = :confirmed, confirmed_at = :now',
          ConditionExpression: `${itemPresent} AND #status = :pending`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':confirmed': 'confirmed', ':pending': 'pending', ':now': now.toISOString() },
        },
      },
    ],
  ]);
  if (outcome === 'ok') return { state: 'confirmed', link };
  // The link was used (a second click at once) or expired meanwhile: say which, as read now.
  if (outcome === 'link') return stateOf(await readLink(token), clock.now());
  return { state: 'unknown' };
}
