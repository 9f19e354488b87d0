import * as z from 'zod';
import { Id, Timestamp } from '../api/common.js';
import { Email } from '../accounts/model.js';

export const subscribeInput = z.strictObject({ email: Email });
export type SubscribeInput = z.output<typeof subscribeInput>;

export const subscriberParams = z.strictObject({ id: z.uuid(), subscriberId: z.uuid() });
export const unsubscribeParams = z.strictObject({ token: z.string().min(1).max(512) });

export const subscriberItem = z.object({
  id: z.string(),
  monitor_id: z.string(),
  email: z.string(),
  created_at: z.string(),
  unsubscribe_token: z.string(),
});
export type Subscriber = z.output<typeof subscriberItem>;

export const unsubscribeTokenItem = z.object({
  monitor_id: z.string(),
  monitor_name: z.string(),
  subscriber_id: z.string(),
  email: z.string(),
});

export const SubscriberBody = z
  .strictObject({ id: Id, monitor_id: Id, email: z.string().meta({ example: 'customer@example.com' }), created_at: Timestamp })
  .meta({ id: 'Subscriber' });

export const subscriberView = (subscriber: Subscriber): z.output<typeof SubscriberBody> => ({
  id: subscriber.id,
  monitor_id: subscriber.monitor_id,
  email: subscriber.email,
  created_at: subscriber.created_at,
});
