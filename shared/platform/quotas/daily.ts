/**
 * Per-account daily quotas on what sends mail to others: subscribing an address (its confirmation
 * e-mail), inviting (the invite e-mail), opening an incident by hand (its e-mail to every subscriber),
 * paging an address that is no account paged as itself (the distinct addresses, and the pages; see
 * `paging/outside.ts`). Each is a counter item per account, kind and UTC day, incremented in the very
 * transaction of the action on the condition that it is below the quota, so concurrent requests never
 * exceed it. The counters expire (TTL) two days after their day.
 *
 * Per-recipient daily quotas (issue 41) cap what one address receives of the e-mails it did not ask
 * for, whichever accounts send them: a counter per lower-cased address, kind and UTC day, charged in the
 * same transaction beside the account's.
 */
import { tableName } from '../db/client.js';
import { attributes, keys } from '../db/keys.js';
import type { TransactItem } from '../db/ops.js';
import { TooManyRequestsError } from '../errors.js';

/** How many a day each account may do (UTC days). */
export const DAILY_QUOTAS = {
  subscriptions: 100,
  invites: 50,
  incidents: 100,
  /** Distinct addresses paged that are no account paged as itself (escalation `email` targets). */
  paged_addresses: 25,
  /** Pages to such addresses. */
  outside_pages: 250,
} as const;
export type QuotaKind = keyof typeof DAILY_QUOTAS;

const WHAT: Record<QuotaKind, string> = {
  subscriptions: 'subscribers added',
  invites: 'invites sent',
  incidents: 'incidents created by hand',
  paged_addresses: 'outside addresses paged',
  outside_pages: 'pages to outside addresses',
};

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_MS = 2 * DAY_MS;

/** The UTC day of `at` (`yyyy-mm-dd`) and when the next one starts. */
export function utcDay(at: Date): { day: string; next: Date } {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return { day: new Date(start).toISOString().slice(0, 10), next: new Date(start + DAY_MS) };
}

/** The transaction item that counts one more `kind` for `userId` today, refused once the quota is reached. */
export const quotaCharge = (userId: string, kind: QuotaKind, now: Date): TransactItem =>
  counterCharge(keys.dailyQuota(userId, kind, utcDay(now).day), DAILY_QUOTAS[kind], now);

/** The TTL (epoch seconds) of an item that counts for the UTC day of `now`: two days after that day. */
export const dayItemTtl = (now: Date) => Math.floor((utcDay(now).next.getTime() + RETENTION_MS) / 1000);

function counterCharge(key: Record<string, string>, quota: number, now: Date): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #type = :type, #count = if_not_exists(#count, :zero) + :one, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :quota',
      ExpressionAttributeNames: { '#type': 'type', '#count': 'count', '#ttl': attributes.ttl },
      ExpressionAttributeValues: {
        ':type': 'daily_quota',
        ':zero': 0,
        ':one': 1,
        ':quota': quota,
        ':ttl': dayItemTtl(now),
      },
    },
  };
}

/** The text of a reached quota (one per kind; documented in the OpenAPI document). */
export const quotaMessage = (kind: QuotaKind) =>
  `Daily limit reached: ${DAILY_QUOTAS[kind]} ${WHAT[kind]} a day per account. Try again after 00:00 UTC.`;

const secondsToNextDay = (now: Date) => Math.max(1, Math.ceil((utcDay(now).next.getTime() - now.getTime()) / 1000));

/** `429` with `Retry-After`: the seconds until the next UTC day. */
export function quotaExceeded(kind: QuotaKind, now: Date): TooManyRequestsError {
  return new TooManyRequestsError(quotaMessage(kind), secondsToNextDay(now));
}

/** How many e-mails one address may receive a day of each kind it did not ask for, from all accounts together. */
export const RECIPIENT_DAILY_QUOTAS = {
  /** Subscription confirmation e-mails (double opt-in). */
  confirmations: 5,
  /** Team invitations. */
  invites: 5,
} as const;
export type RecipientQuotaKind = keyof typeof RECIPIENT_DAILY_QUOTAS;

const RECIPIENT_WHAT: Record<RecipientQuotaKind, string> = {
  confirmations: 'subscription confirmation e-mails',
  invites: 'invitations',
};

/** The transaction item that counts one more `kind` sent to `email` today (any account), refused once the quota is reached. */
export const recipientQuotaCharge = (email: string, kind: RecipientQuotaKind, now: Date): TransactItem =>
  counterCharge(keys.recipientQuota(email, kind, utcDay(now).day), RECIPIENT_DAILY_QUOTAS[kind], now);

/** The text of a recipient's reached quota (one per kind; documented in the OpenAPI document). */
export const recipientQuotaMessage = (kind: RecipientQuotaKind) =>
  `Daily limit reached: ${RECIPIENT_DAILY_QUOTAS[kind]} ${RECIPIENT_WHAT[kind]} a day to one address. Try again after 00:00 UTC.`;

/** `429` with `Retry-After`, as `quotaExceeded`. */
export function recipientQuotaExceeded(kind: RecipientQuotaKind, now: Date): TooManyRequestsError {
  return new TooManyRequestsError(recipientQuotaMessage(kind), secondsToNextDay(now));
}
