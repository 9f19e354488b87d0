import { randomBytes, randomUUID } from 'node:crypto';
import type { Caller } from '../caller.js';
import { clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { monitorNotFound, requireOwnedMonitor } from '../monitors/service.js';
import * as repository from './repository.js';
import { subscriberView, type SubscribeInput, type Subscriber } from './model.js';

const subscriberNotFound = () => new NotFoundError('Subscriber not found');

export async function subscribe(caller: Caller, monitorId: string, input: SubscribeInput) {
  const monitor = await requireOwnedMonitor(caller, monitorId);
  const subscriber: Subscriber = {
    id: randomUUID(),
    monitor_id: monitorId,
    email: input.email,
    created_at: clock.nowIso(),
    unsubscribe_token: randomBytes(32).toString('base64url'),
  };
  const outcome = await repository.insertSubscriber(caller.userId, monitor.name, subscriber);
  if (outcome === 'monitor_not_found') throw monitorNotFound();
  if (outcome === 'already_subscribed') throw new BadRequestError('Already subscribed');
  if (outcome !== 'ok') throw new Error(`Unexpected conflict: ${outcome}`);
  return subscriberView(subscriber);
}

export async function listSubscribers(caller: Caller, monitorId: string) {
  const { monitor, subscribers } = await repository.getMonitorWithSubscribers(monitorId);
  if (!monitor || monitor.owner_id !== caller.userId) throw monitorNotFound();
  return subscribers.map(subscriberView);
}

export async function removeSubscriber(caller: Caller, monitorId: string, subscriberId: string) {
  const { monitor, subscriber } = await repository.getMonitorAndSubscriber(monitorId, subscriberId);
  if (!monitor || monitor.owner_id !== caller.userId) throw monitorNotFound();
  if (!subscriber || !(await repository.deleteSubscriber(subscriber))) throw subscriberNotFound();
}

/** Follows an unsubscribe link (no account needed): the subscription is gone, whoever clicks twice. */
export async function unsubscribe(token: string): Promise<{ monitorName: string; email: string } | undefined> {
  const found = await repository.getUnsubscribeToken(token);
  if (!found) return undefined;
  await repository.deleteSubscriber({
    id: found.subscriber_id,
    monitor_id: found.monitor_id,
    email: found.email,
    created_at: '',
    unsubscribe_token: token,
  });
  return { monitorName: found.monitor_name, email: found.email };
}

/** For the notifier: every subscriber of a monitor, with the unsubscribe token. */
export async function subscribersOf(monitorId: string): Promise<Subscriber[]> {
  return (await repository.getMonitorWithSubscribers(monitorId)).subscribers;
}
