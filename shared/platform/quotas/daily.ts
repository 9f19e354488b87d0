/**
 * Per-account daily quotas on what sends mail to others: subscribing an address (its confirmation
 * e-mail), inviting (the invite e-mail), opening an incident by hand (its e-mail to every subscriber).
 * Each is a counter item per account, kind and UTC day, incremented in the very transaction of the
 * action on the condition that it is below the quota, so concurrent requests never exceed it. The
 * counters expire (TTL) two days after their day.
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
} as const;
export type QuotaKind = keyof typeof DAILY_QUOTAS;

const WHAT: Record<QuotaKind, string> = {
  subscriptions: 'subscribers added',
  invites: 'invites sent',
  incidents: 'incidents created by hand',
};

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_MS = 2 * DAY_MS;

/** The UTC day of `at` (`yyyy-mm-dd`) and when the next one starts. */
export function utcDay(at: Date): { day: string; next: Date } {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return { day: new Date(start).toISOString().slice(0, 10), next: new Date(start + DAY_MS) };
}

/** The transaction item that counts one more `kind` for `userId` today, refused once the quota is reached. */
export function quotaCharge(userId: string, kind: QuotaKind, now: Date): TransactItem {
  const { day, next } = utcDay(now);
  return {
    Update: {
      TableName: tableName(),
      Key: keys.dailyQuota(userId, kind, day),
      UpdateExpression: 'SET #type = :type, #count = if_not_exists(#count, :zero) + :one, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :quota',
      ExpressionAttributeNames: { '#type': 'type', '#count': 'count', '#ttl': attributes.ttl },
      ExpressionAttributeValues: {
        ':type': 'daily_quota',
        ':zero': 0,
        ':one': 1,
        ':quota': DAILY_QUOTAS[kind],
        ':ttl': Math.floor((next.getTime() + RETENTION_MS) / 1000),
      },
    },
  };
}

/** The text of a reached quota (one per kind; documented in the OpenAPI document). */
export const quotaMessage = (kind: QuotaKind) =>
  `Daily limit reached: ${DAILY_QUOTAS[kind]} ${WHAT[kind]} a day per account. Try again after 00:00 UTC.`;

/** `429` with `Retry-After`: the seconds until the next UTC day. */
export function quotaExceeded(kind: QuotaKind, now: Date): TooManyRequestsError {
  return new TooManyRequestsError(quotaMessage(kind), Math.max(1, Math.ceil((utcDay(now).next.getTime() - now.getTime()) / 1000)));
}
