/**
 * A key's rates (issue 46 §4): what an integration key may do a minute — events (`alerts/ingest.ts`),
 * incidents its webhook alerts open, heartbeat pings (`heartbeats/service.ts`) — each counted in fixed
 * one-minute windows in the key's lookup item (a window attribute, the minute's number, and a count
 * attribute), so a limit holds across every function instance at once.
 *
 * Instances' clocks differ a little: a minute already started by an instance whose clock is ahead is
 * the key's current minute for an instance whose clock is behind, counted in, not fought over (neither
 * "start a later minute" nor "count in my minute" holds for it, which would give up with a 500).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../platform/clock.js';
import { db, tableName } from '../platform/db/client.js';
import { itemPresent, keys } from '../platform/db/keys.js';
import { conditionFailure, sendWrite } from '../platform/db/ops.js';
import { retryOnConflict } from '../platform/db/retry.js';

const WINDOW_MS = 60_000;

/** One of a key's rates: its item's attributes, its limit, and what else its writes set. */
export interface KeyRate {
  /** The attribute holding the counted minute (minutes since the epoch). */
  window: string;
  /** The attribute holding the minute's count. */
  count: string;
  max: number;
  /** More to SET with each write (`last_event_at = :now`): a comma-joined list, values in `values`. */
  set?: (now: Date) => { expression: string; values: Record<string, unknown> };
  /** The write tried first: `start` where a request usually starts its key's minute (a heartbeat), `count` where it usually continues it. */
  first: 'start' | 'count';
}

/** The minute of `now` (minutes since the epoch). */
export const minuteOf = (now: Date): number => Math.floor(now.getTime() / WINDOW_MS);

/** Seconds until the end of `minute` (at least 1). */
export const secondsLeftIn = (minute: number, now: Date): number => Math.max(1, Math.ceil(((minute + 1) * WINDOW_MS - now.getTime()) / 1000));

/**
 * The key's current minute as its item tells it: ours, or a later one an instance whose clock is a
 * little ahead started (a counted minute never goes back).
 */
export const currentMinute = (rate: Pick<KeyRate, 'window'>, item: Record<string, unknown> | undefined, minute: number): number => {
  const counted = item?.[rate.window];
  return typeof counted === 'number' && counted > minute ? counted : minute;
};

/** Whether the item counts a minute before `minute` (or none): the next write starts `minute`. */
export const minuteOlder = (rate: Pick<KeyRate, 'window'>, item: Record<string, unknown>, minute: number): boolean => {
  const counted = item[rate.window];
  return typeof counted !== 'number' || counted < minute;
};

/** Whether the item's `minute` is full. */
export const minuteFull = (rate: Pick<KeyRate, 'window' | 'count' | 'max'>, item: Record<string, unknown>, minute: number): boolean =>
  item[rate.window] === minute && Number(item[rate.count]) >= rate.max;

/**
 * The update that counts one in `minute`: `start` sets a new minute's first (on the condition that the
 * item's minute is older, or none), otherwise one more in it (on the condition that it is this minute
 * and not full). Both on the condition that the item is there (an unknown or revoked key writes nothing).
 */
export function minuteUpdate(rate: KeyRate, start: boolean, minute: number, now: Date) {
  const extra = rate.set?.(now);
  const also = extra ? `, ${extra.expression}` : '';
  return start
    ? {
        expression: `SET ${rate.window} = :window, ${rate.count} = :one${also}`,
        condition: `${itemPresent} AND (attribute_not_exists(${rate.window}) OR ${rate.window} < :window)`,
        values: { ':window': minute, ':one': 1, ...extra?.values },
      }
    : {
        expression: `${extra ? `SET ${extra.expression} ` : ''}ADD ${rate.count} :one`,
        condition: `${itemPresent} AND ${rate.window} = :window AND ${rate.count} < :max`,
        values: { ':window': minute, ':one': 1, ':max': rate.max, ...extra?.values },
      };
}

/**
 * One conditional UpdateItem of the key's lookup item: the item after it, or as it was when the
 * condition failed. A repeat trigger's transaction holds the same item (`countRepeat` in
 * `alerts/ingest.ts`): a conflict with it is retried as `transactWrite` retries its own (`sendWrite`).
 */
async function updateLookup(keyHash: string, update: { expression: string; condition: string; values: Record<string, unknown> }) {
  try {
    const { Attributes } = await sendWrite(() =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.integrationKey(keyHash),
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ExpressionAttributeValues: update.values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return { ok: true as const, item: Attributes! };
  } catch (error) {
    const failed = conditionFailure(error);
    if (!failed) throw error;
    return { ok: false as const, item: failed.item };
  }
}

export type MinuteCounted =
  | { ok: true; item: Record<string, unknown> }
  | { ok: false; reason: 'unknown' }
  | { ok: false; reason: 'full'; retryAfterSeconds: number };

export const rateWindowGaveUp = (attempts: number) => `The key's rate window kept changing; gave up after ${attempts} attempts`;

/**
 * Counts one request of the key (`keyHash`) against `rate`: the key's item after it (`ok`), or the
 * key unknown (no item), or its current minute full (with the seconds until it ends). One UpdateItem
 * when the first write holds, two otherwise; a minute that turned between them is read again
 * (`retryOnConflict`).
 */
export function countInMinute(keyHash: string, rate: KeyRate, gaveUp: (attempts: number) => string = rateWindowGaveUp): Promise<MinuteCounted> {
  return retryOnConflict<MinuteCounted>(async () => {
    const now = clock.now();
    const minute = minuteOf(now);
    const first = await updateLookup(keyHash, minuteUpdate(rate, rate.first === 'start', minute, now));
    if (first.ok) return first;
    if (!first.item) return { ok: false, reason: 'unknown' };
    const current = currentMinute(rate, first.item, minute);
    if (minuteFull(rate, first.item, current)) return { ok: false, reason: 'full', retryAfterSeconds: secondsLeftIn(current, now) };
    // An older minute (or none): start ours; the current one (ours, or one a clock ahead started): count in it.
    const second = await updateLookup(keyHash, minuteUpdate(rate, minuteOlder(rate, first.item, minute), current, now));
    if (second.ok) return second;
    if (!second.item) return { ok: false, reason: 'unknown' };
    if (minuteFull(rate, second.item, current)) return { ok: false, reason: 'full', retryAfterSeconds: secondsLeftIn(current, now) };
    return undefined; // The minute turned (or was started) meanwhile: again.
  }, gaveUp);
}
