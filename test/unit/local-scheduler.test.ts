/** The local scheduler keeps schedules across a restart and fires each once, on the service clock. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalScheduler, parseAt } from '../../infra/local/aws/scheduler.js';
import { advanceClock, freezeClock, resetClock } from '../../shared/platform/clock.js';

afterEach(() => resetClock());

const request = (at: string, input: object) => ({
  ScheduleExpression: `at(${at})`,
  ScheduleExpressionTimezone: 'UTC',
  ActionAfterCompletion: 'DELETE',
  GroupName: 'g',
  Target: { Arn: 'arn:aws:lambda:local:000000000000:function:escalation-step', Input: JSON.stringify(input) },
});

describe('LocalScheduler', () => {
  it('survives a restart: a pending schedule fires from the new instance, once', async () => {
    freezeClock(new Date('2026-05-01T10:00:00Z'));
    const file = join(mkdtempSync(join(tmpdir(), 'scheduler-')), 'schedules.json');
    const before: unknown[] = [];
    const first = new LocalScheduler({ file, invoke: async (_, input) => before.push(input) });
    first.create('esc-1-2', request('2026-05-01T10:05:00', { step_order: 2 }));
    await first.tick();
    expect(before).toEqual([]);
    await first.stop();

    const fired: unknown[] = [];
    // One-time schedules only: no periodic rule (the heartbeat sweep would run after the clock's 5 minutes).
    const second = new LocalScheduler({ file, invoke: async (arn, input) => fired.push({ arn, input }), periodic: [] });
    expect(second.list().map((schedule) => schedule.name)).toEqual(['esc-1-2']);
    advanceClock(5 * 60_000);
    await Promise.all([second.tick(), second.tick()]);
    await second.tick();
    expect(fired).toEqual([{ arn: 'arn:aws:lambda:local:000000000000:function:escalation-step', input: { step_order: 2 } }]);
    expect(second.list()).toEqual([]);
    expect(new LocalScheduler({ file, invoke: async () => undefined }).list()).toEqual([]);
  });

  it('refuses a duplicate name (ConflictException) and retries a failing target', async () => {
    freezeClock(new Date('2026-05-01T10:00:00Z'));
    let failures = 2;
    const scheduler = new LocalScheduler({
      invoke: async () => {
        if (failures-- > 0) throw new Error('target down');
      },
    });
    scheduler.create('s', request('2026-05-01T10:00:00', {}));
    expect(() => scheduler.create('s', request('2026-05-01T10:00:00', {}))).toThrow(expect.objectContaining({ name: 'ConflictException' }));
    await scheduler.tick();
    await scheduler.tick();
    expect(scheduler.list()).toHaveLength(1);
    await scheduler.tick();
    expect(scheduler.list()).toEqual([]);
    expect(scheduler.fired).toHaveLength(1);
  });

  it('runs a periodic rule once per period of the service clock, the first a period after the scheduler is created', async () => {
    freezeClock();
    const fired: unknown[] = [];
    const scheduler = new LocalScheduler({ invoke: async (target) => fired.push(target), periodic: [{ name: 'sweep', everyMinutes: 1, target: 'heartbeat-sweep' }] });
    await scheduler.tick();
    advanceClock(59_000);
    await scheduler.tick();
    expect(fired).toEqual([]);
    advanceClock(1_000);
    await scheduler.tick();
    await scheduler.tick();
    expect(fired).toEqual(['heartbeat-sweep']);
    advanceClock(5 * 60_000);
    await scheduler.tick();
    expect(fired).toEqual(['heartbeat-sweep', 'heartbeat-sweep']);
  });

  it('runs a periodic rule at its first tick when the clock has already passed its first period (a test that moves the clock at once)', async () => {
    freezeClock();
    const fired: unknown[] = [];
    const scheduler = new LocalScheduler({ invoke: async (target) => fired.push(target), periodic: [{ name: 'sweep', everyMinutes: 1, target: 'heartbeat-sweep' }] });
    advanceClock(3_600_000);
    await scheduler.tick();
    expect(fired).toEqual(['heartbeat-sweep']);
    await scheduler.tick();
    expect(fired).toEqual(['heartbeat-sweep']);
  });

  it('runs a periodic rule a period after the clock was put back, never at the moved-on time (a test resetting the clock)', async () => {
    freezeClock();
    const fired: unknown[] = [];
    const scheduler = new LocalScheduler({ invoke: async (target) => fired.push(target), periodic: [{ name: 'sweep', everyMinutes: 1, target: 'heartbeat-sweep' }] });
    // A test moves the clock an hour on, a run happens then, and the clock is put back.
    advanceClock(3_600_000);
    await scheduler.tick();
    expect(fired).toHaveLength(1);
    advanceClock(-3_600_000);
    await scheduler.tick();
    advanceClock(61_000);
    await scheduler.tick();
    expect(fired).toHaveLength(2);
  });

  it('reads at(...) expressions in UTC only', () => {
    expect(parseAt('at(2026-05-01T10:05:00)')).toBe('2026-05-01T10:05:00.000Z');
    expect(() => parseAt('rate(5 minutes)')).toThrow();
    expect(() => parseAt('at(2026-05-01T10:05:00)', 'Europe/Berlin')).toThrow();
  });
});
