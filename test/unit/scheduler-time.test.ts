/**
 * Issue 46 §10: no one-time schedule is created in the past. Scheduler refuses an `at()` that has passed, or
 * never fires it; a worker running late (a retried invocation, a step already due) must still page.
 */
import { describe, expect, it } from 'vitest';
import { atExpression, SCHEDULE_LEAD_MS, scheduledAt } from '../../shared/platform/scheduler.js';

describe('one-time schedule times', () => {
  const now = new Date('2026-11-28T10:00:00.250Z');

  it('keeps a time far enough ahead as it is', () => {
    expect(scheduledAt('2026-11-28T10:05:00.000Z', now)).toBe('2026-11-28T10:05:00.000Z');
    expect(scheduledAt(new Date(now.getTime() + SCHEDULE_LEAD_MS).toISOString(), now)).toBe('2026-11-28T10:00:01.250Z');
  });

  it('moves a past or imminent time to just ahead of now, so its at() is never in the past', () => {
    for (const at of ['2026-11-28T09:00:00.000Z', '2026-11-28T10:00:00.250Z', '2026-11-28T10:00:01.000Z', '1970-01-01T00:00:00.000Z']) {
      const scheduled = scheduledAt(at, now);
      expect(scheduled, at).toBe('2026-11-28T10:00:01.250Z');
      // The expression, rounded up to the second, is after now by at least the lead.
      const expression = atExpression(scheduled);
      expect(expression).toBe('at(2026-11-28T10:00:02)');
      expect(Date.parse(`${expression.slice(3, -1)}Z`) - now.getTime()).toBeGreaterThanOrEqual(SCHEDULE_LEAD_MS);
    }
  });
});
