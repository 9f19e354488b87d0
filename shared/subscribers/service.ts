import { keys } from '../platform/db/keys.js';
import type { TransactItem } from '../platform/db/ops.js';
import { linkTokenHash, newEmailedLink } from '../platform/emailed-link.js';
import { timeOrderedUuid } from '../platform/ids.js';
import { decodeCursor, pageView, type PageRequest } from '../platform/api/pagination.js';
import { mergePage, readSource, type PageWindow } from '../platform/db/pagination.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { subscriberItem } from './model.js';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { BadRequestError, NotFoundError } from '../platform/errors.js';
import { getMonitor } from '../monitors/repository.js';
import { missingRefusal, monitorNotFound, monitorWriteGuard } from '../monitors/service.js';
import { accessRefusal, accessTo, allows, OPERATORS, READERS } from '../teams/access.js';
import * as repository from './repository.js';
import { subscriberView, type SubscribeInput, type Subscriber, type SubscriptionStatus } from './model.js';
import { outboxPut } from '../platform/events/outbox.js';
import { quotaCharge, quotaExceeded, recipientQuotaCharge, recipientQuotaExceeded } from '../platform/quotas/daily.js';

const subscriberNotFound = () => new NotFoundError('Subscriber not found');
const monitorKeptChanging = (monitorId: string) => (attempts: number) => `Monitor ${monitorId} kept changing; gave up after ${attempts} attempts`;

/** A new subscription of `email` to the monitor: a time-ordered id (its unsubscribe links come with its e-mails). */
export const newSubscriber = (monitorId: string, email: string, status: SubscriptionStatus): Subscriber => ({
  id: timeOrderedUuid(),
  monitor_id: monitorId,
  email,
  created_at: clock.nowIso(),
  status,
});

/** An unsubscribe link works this long after its e-mail (CAN-SPAM asks for 30 days; every later e-mail brings a new one). */
export const UNSUBSCRIBE_LINK_VALIDITY_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * The unsubscribe link of one e-mail to a subscriber (issue 41, 8): the token for the e-mail, and the
 * record to write with its delivery, keyed by the token's SHA-256 (the token is never stored).
 */
export function newUnsubscribeLink(subscriber: Subscriber, monitorName: string): { token: string; record: TransactItem } {
  return newEmailedLink(keys.unsubscribeToken, UNSUBSCRIBE_LINK_VALIDITY_MS, {
    type: 'unsubscribe_link',
    monitor_id: subscriber.monitor_id,
    monitor_name: monitorName,
    subscriber_id: subscriber.id,
    email: subscriber.email,
    hashed: true,
  });
}

/** Subscribes an e-mail to a monitor's incidents: its owner, or an OWNER, ADMIN or MEMBER of its team. */
export async function subscribe(caller: Caller, monitorId: string, input: SubscribeInput) {
  return retryOnConflict(async () => {
    const monitor = await getMonitor(monitorId);
    const guard = monitorWriteGuard(caller, monitor, OPERATORS);
    // Pending until the address confirms through the one e-mail this sends (double opt-in).
    const subscriber = newSubscriber(monitorId, input.email, 'pending');
    const now = clock.now();
    const { outcome, item } = await repository.insertSubscriber(monitor!, subscriber, guard, {
      quota: quotaCharge(caller.userId, 'subscriptions', now),
      recipientQuota: recipientQuotaCharge(subscriber.email, 'confirmations', now),
      outbox: outboxPut(
        'subscriber.confirmation_requested',
        { subscription: { id: subscriber.id, monitor_id: monitorId, monitor_name: monitor!.name, email: subscriber.email } },
        subscriber.created_at,
      ),
    });
    if (outcome === 'ok') return subscriberView(subscriber);
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome === 'already_subscribed') throw new BadRequestError('Already subscribed');
    if (outcome === 'quota') throw quotaExceeded('subscriptions', now);
    if (outcome === 'recipient_quota') throw recipientQuotaExceeded('confirmations', now);
    if (outcome !== 'moved') throw new Error(`Unexpected conflict: ${outcome}`);
    return undefined;
  }, monitorKeptChanging(monitorId));
}

/**
 * A page of a monitor's subscribers, oldest first (their ids are time-ordered): for its owner and
 * every member of its team. The monitor and the page are read in parallel.
 */
export async function listSubscribers(caller: Caller, monitorId: string, query: PageRequest) {
  const binding = { list: `monitors/${monitorId}/subscribers`, callerId: caller.userId };
  const window: PageWindow = { limit: query.limit, order: 'asc', after: decodeCursor(query.cursor, binding) };
  const [monitor, read] = await Promise.all([getMonitor(monitorId), readSource(repository.subscriberSource(monitorId), window)]);
  if (!monitor || !allows(await accessTo(caller.userId, monitor), READERS)) throw monitorNotFound();
  const page = mergePage([read], window);
  return pageView({ items: page.items.map((item) => subscriberItem.parse(item)), next: page.next }, binding, subscriberView);
}

/** Removes a subscriber: the monitor's owner, or an OWNER, ADMIN or MEMBER of its team. */
export async function removeSubscriber(caller: Caller, monitorId: string, subscriberId: string) {
  await retryOnConflict(async () => {
    const { monitor, subscriber } = await repository.getMonitorAndSubscriber(monitorId, subscriberId);
    const guard = monitorWriteGuard(caller, monitor, OPERATORS);
    if (!subscriber) throw await missingRefusal(caller, monitor!, guard, subscriberNotFound);
    const { outcome, item } = await repository.deleteSubscriber(subscriber, guard, guard.length > 0 ? monitor : undefined);
    if (outcome === 'ok') return DONE;
    if (outcome === 'team_gone' || outcome === 'team_role') throw accessRefusal(outcome, item, monitorNotFound);
    if (outcome === 'gone') throw subscriberNotFound();
    return undefined;
  }, monitorKeptChanging(monitorId));
}

/** Opens an unsubscribe link (no account needed): whose subscription of what it would end. Never unsubscribes. */
export async function inspectUnsubscribe(token: string): Promise<{ monitorName: string; email: string } | undefined> {
  const found = await repository.getUnsubscribeLink(token, clock.nowIso());
  return found && { monitorName: found.monitor_name, email: found.email };
}

/** The unsubscribe page's button (no account needed): the subscription is gone, whoever clicks twice. */
export async function unsubscribe(token: string): Promise<{ monitorName: string; email: string } | undefined> {
  const found = await repository.getUnsubscribeLink(token, clock.nowIso());
  if (!found) return undefined;
  await repository.deleteSubscriber({
    id: found.subscriber_id,
    monitor_id: found.monitor_id,
    email: found.email,
    created_at: '',
    // The link used goes with the subscription (an e-mail's, or the subscription's own token from before hashing).
    ...(found.hashed ? { unsubscribe_token_hash: linkTokenHash(token) } : { unsubscribe_token: token }),
  });
  return { monitorName: found.monitor_name, email: found.email };
}

/**
 * For the notifier, the subscribers e-mail may go to: every confirmed subscription of the monitor (a
 * pending one gets its confirmation e-mail only) not suppressed by a bounce or complaint.
 */
export async function subscribersOf(monitorId: string): Promise<Subscriber[]> {
  return (await repository.getMonitorWithSubscribers(monitorId)).subscribers.filter(
    (subscriber) => !subscriber.suppressed_at && subscriber.status !== 'pending',
  );
}
