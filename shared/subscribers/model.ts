import * as z from '../platform/zod.js';
import { described, Id, Timestamp } from '../platform/api/common.js';
import { Email } from '../accounts/model.js';

export const subscribeInput = z.strictObject({ email: Email });
export type SubscribeInput = z.output<typeof subscribeInput>;

export const subscriberParams = z.strictObject({ id: z.uuid(), subscriberId: z.uuid() });
export const unsubscribeParams = z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(512)) });
export const confirmParams = unsubscribeParams;

export const subscriberItem = z.object({
  id: z.string(),
  monitor_id: z.string(),
  email: z.string(),
  created_at: z.string(),
  /**
   * Issue 41 (8): no token is stored with a subscription any more; each e-mail carries its own unsubscribe
   * link, kept as its SHA-256 (`unsubscribeLink`). `unsubscribe_token`: the token of a subscription made
   * before, in clear, until the notifier hashes it (`unsubscribe_token_hash`, whose lookup goes with the
   * subscription).
   */
  unsubscribe_token: z.optional(z.string()),
  unsubscribe_token_hash: z.optional(z.string()),
  /** Set when SES reported a hard bounce or a complaint: no more e-mail goes to this subscription. */
  suppressed_at: z.optional(z.string()),
  suppression_reason: z.optional(z.enum(['bounce', 'complaint'])),
  /** `pending` until the address confirms through the link e-mailed to it; absent (subscribed before double opt-in): confirmed. */
  status: z.optional(z.enum(['pending', 'confirmed'])),
  confirmed_at: z.optional(z.string()),
});
export type Subscriber = z.output<typeof subscriberItem>;
export type SubscriptionStatus = NonNullable<Subscriber['status']>;

/** A subscription's confirmation link (`SUBCONFIRM#<sha256 of the token>`). */
export const confirmationLinkItem = z.object({
  monitor_id: z.string(),
  monitor_name: z.string(),
  subscriber_id: z.string(),
  email: z.string(),
  expires_at: z.string(),
  used_at: z.optional(z.string()),
});
export type ConfirmationLink = z.output<typeof confirmationLinkItem>;

/**
 * An unsubscribe link (`UNSUB#<sha256 of the token>`): one per e-mail, until `expires_at`; or, without
 * it, a subscription's token from before hashing, rehashed. `hashed` tells both from a token stored in
 * clear before (`UNSUB#<token>`), which is found by the token itself.
 */
export const unsubscribeTokenItem = z.object({
  monitor_id: z.string(),
  monitor_name: z.string(),
  subscriber_id: z.string(),
  email: z.string(),
  hashed: z.optional(z.boolean()),
  expires_at: z.optional(z.string()),
});
export type UnsubscribeLink = z.output<typeof unsubscribeTokenItem>;

export const Suppression = described(z.strictObject({ reason: z.enum(['bounce', 'complaint']), at: Timestamp }), {
  id: 'Suppression',
  description:
    'Why and since when no e-mail goes to this subscriber: SES reported a hard bounce or a complaint. Delete the subscriber and subscribe the address again to resume.',
});

export const SubscriberBody = described(
  z.strictObject({
    id: Id,
    monitor_id: Id,
    email: described(z.string(), { example: 'customer@example.com' }),
    created_at: Timestamp,
    suppression: z.nullable(Suppression),
    status: described(z.enum(['pending', 'confirmed']), {
      description:
        '`pending` until the address confirms through the link of the one confirmation e-mail subscribing sends (valid 7 days); nothing else is e-mailed to a pending address. Subscriptions from before double opt-in are `confirmed`.',
    }),
  }),
  { id: 'Subscriber' },
);

export const subscriberView = (subscriber: Subscriber): z.output<typeof SubscriberBody> => ({
  id: subscriber.id,
  monitor_id: subscriber.monitor_id,
  email: subscriber.email,
  created_at: subscriber.created_at,
  suppression:
    subscriber.suppressed_at && subscriber.suppression_reason ? { reason: subscriber.suppression_reason, at: subscriber.suppressed_at } : null,
  status: subscriber.status ?? 'confirmed',
});
