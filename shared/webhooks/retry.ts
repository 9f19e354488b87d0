/**
 * What a delivery attempt's outcome means, when to try again, and when a webhook has failed long
 * enough to be disabled. Pure functions over results and timestamps; the delivery worker keeps
 * the state (attempt count, the webhook's failing streak) and the clock.
 *
 * - success: any 2xx received within the 10 s limit (the status decides: a receiver that answers
 *   2xx and then stalls its body has accepted the message; the record keeps the timeout's text);
 * - retry: no answer (timeout, connection or DNS failure), 408, 429 and every 5xx;
 * - disable: 410 Gone disables the webhook at once;
 * - fail: every other status (other 4xx, 3xx: redirects are not followed), and a target refused
 *   at delivery time (its name now resolves to a refused address): the message fails, no retry.
 *
 * Retries follow the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h after the failed attempt
 * (8 attempts over about 31.6 hours), each delay lengthened by up to 10 % at random so that
 * messages held up by one outage do not all come back in the same second. A `Retry-After` (on
 * 429 and 503) can only lengthen a delay, never shorten it below the schedule's step, and at most
 * to 14 h, the schedule's longest step; it never adds attempts.
 */
import type { DeliveryResult } from './target.js';

export type Verdict = 'success' | 'retry' | 'disable' | 'fail';

/** Delays before the 2nd to the 8th attempt, counted from the failed attempt before each. */
export const RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 60 * 60_000,
  5 * 60 * 60_000,
  10 * 60 * 60_000,
  14 * 60 * 60_000,
] as const;
/** The first attempt and one per step of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** Each delay is lengthened by a random share of itself below this. */
export const JITTER_RATIO = 0.1;
/** The longest wait a `Retry-After` can ask for. */
export const MAX_RETRY_AFTER_MS = 14 * 60 * 60_000;
/** A webhook whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60_000;

/** The verdict on one attempt's result. */
export function classify(result: Pick<DeliveryResult, 'status' | 'refused'>): Verdict {
  if (result.refused) return 'fail';
  const { status } = result;
  if (status === undefined) return 'retry';
  if (status >= 200 && status < 300) return 'success';
  if (status === 410) return 'disable';
  if (status === 408 || status === 429 || (status >= 500 && status < 600)) return 'retry';
  return 'fail';
}

/**
 * A `Retry-After` header's wait in milliseconds from `now`: delay-seconds or an HTTP date.
 * Undefined when it is neither (a malformed header is ignored); a date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates in GMT: IMF-fixdate and the obsolete RFC 850 form (asctime's, which names no zone, is ignored).
  if (!/^[A-Za-z]{3,9}, .* GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * When the next attempt is due after `attempts` attempts (the last one made at `at`, with
 * `result`) all failed with verdict `retry`; undefined when the schedule is spent (the message
 * has failed). `random` (0 ≤ x < 1) picks the jitter.
 */
export function nextAttemptAt(input: {
  attempts: number;
  at: Date;
  result?: Pick<DeliveryResult, 'status' | 'retry_after'>;
  random?: () => number;
}): Date | undefined {
  const { attempts, at, result } = input;
  if (!Number.isInteger(attempts) || attempts < 1) throw new Error('attempts counts the attempts made: an integer from 1');
  const step = RETRY_SCHEDULE_MS[attempts - 1];
  if (step === undefined) return undefined;
  let delay = Math.round(step * (1 + JITTER_RATIO * (input.random ?? Math.random)()));
  if (result && (result.status === 429 || result.status === 503)) {
    const asked = parseRetryAfter(result.retry_after, at);
    if (asked !== undefined) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
  }
  return new Date(at.getTime() + delay);
}

/**
 * The webhook's failing streak after an attempt at `at`: a success ends it (null); the first
 * failed attempt after a success (or ever) starts it; later failures keep its start.
 */
export function failingSince(previous: string | null | undefined, verdict: Verdict, at: Date): string | null {
  if (verdict === 'success') return null;
  return previous ?? at.toISOString();
}

/** True when every attempt since `since` (the streak's start) has failed for 3 days or more at `now`. */
export function failedTooLong(since: string | null | undefined, now: Date): boolean {
  return since !== null && since !== undefined && now.getTime() - Date.parse(since) >= DISABLE_AFTER_FAILING_MS;
}
