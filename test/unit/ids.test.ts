import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../../shared/platform/ids.js';

describe('timeOrderedUuid', () => {
  it('sorts the ids one process makes within one millisecond in the order it made them', () => {
    const now = Date.UTC(2026, 10, 27, 12);
    const made = Array.from({ length: 1_000 }, () => timeOrderedUuid(now));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    for (const id of made) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The next millisecond's ids sort after them, whatever its counter starts at.
    expect(timeOrderedUuid(now + 1) > made.at(-1)!).toBe(true);
    expect(made[0]!.slice(0, 13).replace('-', '')).toBe(now.toString(16).padStart(12, '0'));
  });
});
