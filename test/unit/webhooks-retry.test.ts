import { describe, expect, it } from 'vitest';
import {
  classify,
  DISABLE_AFTER_FAILING_MS,
  failedTooLong,
  failingSince,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
} from '../../shared/webhooks/retry.js';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const at = new Date('2026-11-21T10:00:00.000Z');
const noJitter = () => 0;

describe('classifying an attempt', () => {
  it.each([200, 201, 202, 204, 299])('%i is a success', (status) => {
    expect(classify({ status })).toBe('success');
  });
  it.each([408, 429, 500, 502, 503, 504, 599])('%i is retried', (status) => {
    expect(classify({ status })).toBe('retry');
  });
  it('no answer at all (timeout, connection, DNS) is retried', () => {
    expect(classify({})).toBe('retry');
  });
  it('410 disables the webhook', () => {
    expect(classify({ status: 410 })).toBe('disable');
  });
  it.each([400, 401, 403, 404, 409, 413, 422, 301, 302, 307, 308, 100, 600])('%i fails the message without retries', (status) => {
    expect(classify({ status })).toBe('fail');
  });
  it('a target refused at delivery fails the message without retries', () => {
    expect(classify({ refused: true })).toBe('fail');
  });
});

describe('the retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h: 8 attempts in all', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([5 * second, 5 * minute, 30 * minute, 2 * hour, 5 * hour, 10 * hour, 14 * hour]);
    expect(MAX_ATTEMPTS).toBe(8);
    let time = at;
    const delays: number[] = [];
    for (let attempts = 1; ; attempts++) {
      const next = nextAttemptAt({ attempts, at: time, random: noJitter });
      if (!next) {
        expect(attempts).toBe(MAX_ATTEMPTS);
        break;
      }
      delays.push(next.getTime() - time.getTime());
      time = next;
    }
    expect(delays).toEqual([...RETRY_SCHEDULE_MS]);
    // From the first attempt to the last: 31 h 35 min 5 s.
    expect(time.getTime() - at.getTime()).toBe(31 * hour + 35 * minute + 5 * second);
  });

  it('lengthens each delay by under 10 %, never shortens it', () => {
    expect(nextAttemptAt({ attempts: 2, at, random: () => 0.5 })!.getTime() - at.getTime()).toBe(5 * minute * 1.05);
    expect(nextAttemptAt({ attempts: 7, at, random: () => 0.999999 })!.getTime() - at.getTime()).toBeLessThan(14 * hour * 1.1);
    for (let i = 0; i < 50; i++) {
      const delay = nextAttemptAt({ attempts: 1, at })!.getTime() - at.getTime();
      expect(delay).toBeGreaterThanOrEqual(5 * second);
      expect(delay).toBeLessThanOrEqual(5.5 * second);
    }
  });

  it('refuses a count of attempts below 1', () => {
    expect(() => nextAttemptAt({ attempts: 0, at })).toThrow('attempts counts the attempts made: an integer from 1');
    expect(() => nextAttemptAt({ attempts: 1.5, at })).toThrow('attempts counts the attempts made: an integer from 1');
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds and HTTP dates; ignores anything else', () => {
    expect(parseRetryAfter('120', at)).toBe(120 * second);
    expect(parseRetryAfter(' 0 ', at)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', at)).toBe(hour);
    expect(parseRetryAfter('Saturday, 21-Nov-26 11:00:00 GMT', at)).toBe(hour);
    expect(parseRetryAfter('Sat Nov 21 11:00:00 2026', at)).toBeUndefined();
    expect(parseRetryAfter('Fri, 20 Nov 2026 11:00:00 GMT', at)).toBe(0);
    expect(parseRetryAfter(undefined, at)).toBeUndefined();
    expect(parseRetryAfter('soon', at)).toBeUndefined();
    expect(parseRetryAfter('-5', at)).toBeUndefined();
    expect(parseRetryAfter('1.5', at)).toBeUndefined();
    expect(parseRetryAfter('2026-11-21T11:00:00Z', at)).toBeUndefined();
  });

  it('on 429 and 503 lengthens the delay up to 14 h, and never shortens it', () => {
    const after = (status: number, retry_after: string, attempts = 1) =>
      nextAttemptAt({ attempts, at, result: { status, retry_after }, random: noJitter })!.getTime() - at.getTime();
    expect(after(429, '60')).toBe(60 * second);
    expect(after(503, '60')).toBe(60 * second);
    expect(after(429, '1')).toBe(5 * second);
    expect(after(429, '60', 3)).toBe(30 * minute);
    expect(after(429, String(24 * 60 * 60))).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(14 * hour);
    expect(after(429, 'Sat, 21 Nov 2026 13:00:00 GMT')).toBe(3 * hour);
    // Other statuses' Retry-After is not ours to honour; a malformed one is ignored.
    expect(after(500, '60')).toBe(5 * second);
    expect(after(429, 'later')).toBe(5 * second);
  });

  it('adds no attempts', () => {
    expect(nextAttemptAt({ attempts: MAX_ATTEMPTS, at, result: { status: 429, retry_after: '10' } })).toBeUndefined();
  });
});

describe('disabling a webhook that keeps failing', () => {
  const iso = (ms: number) => new Date(at.getTime() + ms).toISOString();

  it('a failing streak starts at the first failed attempt and ends at a success', () => {
    expect(failingSince(null, 'retry', at)).toBe(at.toISOString());
    expect(failingSince(undefined, 'fail', at)).toBe(at.toISOString());
    expect(failingSince(iso(-hour), 'retry', at)).toBe(iso(-hour));
    expect(failingSince(iso(-hour), 'fail', at)).toBe(iso(-hour));
    expect(failingSince(iso(-hour), 'disable', at)).toBe(iso(-hour));
    expect(failingSince(iso(-hour), 'success', at)).toBeNull();
    expect(failingSince(null, 'success', at)).toBeNull();
  });

  it('is due once every attempt has failed for 3 days', () => {
    expect(DISABLE_AFTER_FAILING_MS).toBe(72 * hour);
    const since = at.toISOString();
    expect(failedTooLong(since, new Date(at.getTime() + 72 * hour - 1))).toBe(false);
    expect(failedTooLong(since, new Date(at.getTime() + 72 * hour))).toBe(true);
    expect(failedTooLong(null, new Date(at.getTime() + 1000 * hour))).toBe(false);
    expect(failedTooLong(undefined, new Date(at.getTime() + 1000 * hour))).toBe(false);
  });

  it('a receiver down for good: its messages\' attempts on the schedule reach 3 days of failures and disable it', () => {
    // A new message every 12 hours, each tried on the schedule, every attempt failing.
    const attempts: number[] = [];
    for (let message = 0; message * 12 * hour < 4 * 24 * hour; message++) {
      let time = at.getTime() + message * 12 * hour;
      attempts.push(time);
      for (let n = 1; ; n++) {
        const next = nextAttemptAt({ attempts: n, at: new Date(time), random: noJitter });
        if (!next) break;
        time = next.getTime();
        attempts.push(time);
      }
    }
    attempts.sort((a, b) => a - b);
    let streak: string | null = null;
    const disabledAt = attempts.find((time) => {
      streak = failingSince(streak, 'retry', new Date(time));
      return failedTooLong(streak, new Date(time));
    });
    expect(disabledAt).toBeDefined();
    expect(disabledAt! - at.getTime()).toBeGreaterThanOrEqual(72 * hour);
    expect(disabledAt! - at.getTime()).toBeLessThan(84 * hour);
  });
});
