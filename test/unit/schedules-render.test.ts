/**
 * The schedule engine (shared/schedules/render.ts) against the wall clock of five zones over a year,
 * exact UTC instants on both sides of every DST change of 2026, restrictions, overrides and layers, and
 * fast-check properties over random schedules. The oracle for local time is `Intl.DateTimeFormat`, not
 * the engine's library.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Layer, ScheduleOverride, ScheduleRules } from '../../shared/schedules/model.js';
import { onCallAt, renderShifts, type RenderStats, type Shift } from '../../shared/schedules/render.js';
import { instantOf, localDate, parseLocalDateTime } from '../../shared/schedules/zone.js';

const [A, B, C, D] = ['ana', 'ben', 'carla', 'dev'];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata', 'UTC'] as const;

const formats = new Map<string, Intl.DateTimeFormat>();
/** Local `YYYY-MM-DD` and `HH:MM` of an instant, by Intl. */
function wall(zone: string, at: string | number): { date: string; time: string } {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((part) => [part.type, part.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** The calendar day after `YYYY-MM-DD` (calendar arithmetic in UTC, where every day has 24 hours). */
const nextDate = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);

function layer(fields: Partial<Layer> & Pick<Layer, 'start' | 'rotation' | 'members'>): Layer {
  const time = fields.start.slice(11);
  return { name: 'primary', ...(fields.rotation.type === 'hourly' ? {} : { handoff_time: time }), ...fields };
}
const schedule = (time_zone: string, ...layers: Layer[]): ScheduleRules => ({ time_zone, layers });
const starts = (shifts: Shift[]) => shifts.map((shift) => shift.start);
const hours = (shift: Shift) => (Date.parse(shift.end) - Date.parse(shift.start)) / HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(ZONES)('a daily rotation in %s over 2026', (zone) => {
  // Every handoff time that meets a DST change somewhere: a gap (02:30), an overlap (01:30 in New York,
  // 02:30 in Berlin and Sydney), and ordinary times.
  it.each(['09:00', '02:30', '01:30', '00:00', '23:30'])('hands off at %s local time every day, the first valid instant in a gap, the first occurrence in an overlap', (time) => {
    const rules = schedule(zone, layer({ start: `2026-01-01T${time}`, rotation: { type: 'daily', length: 1 }, members: [A, B, C] }));
    const shifts = renderShifts(rules, [], '2025-12-30T00:00:00.000Z', '2027-01-03T00:00:00.000Z');
    expect(shifts.length).toBeGreaterThanOrEqual(366); // 2026-01-01 … 2027-01-01 or 02 local
    expect(shifts.at(-1)!.end).toBe('2027-01-03T00:00:00.000Z');
    let date = '2026-01-01';
    let gaps = 0;
    shifts.forEach((shift, index) => {
      expect(shift.user_id).toBe([A, B, C][index % 3]);
      if (index > 0) expect(shift.start).toBe(shifts[index - 1]!.end);
      const local = wall(zone, shift.start);
      expect(local.date).toBe(date);
      if (local.time !== time) {
        // Only in a gap: the minute before the handoff was still before `time`, and the clocks jumped past it.
        gaps += 1;
        const before = wall(zone, Date.parse(shift.start) - 60_000);
        expect(before.date).toBe(date);
        expect(before.time < time && time < local.time).toBe(true);
      } else {
        // The first occurrence: an hour earlier the clock did not show the same time.
        expect(wall(zone, Date.parse(shift.start) - HOUR)).not.toEqual(local);
      }
      date = nextDate(date);
    });
    const changes = zone === 'UTC' || zone === 'Asia/Kolkata' ? 0 : 1;
    expect(gaps).toBe(time === '02:30' ? changes : 0);
    // Where the zone has DST: the spring day is 23 hours (two of 23.5 around a handoff moved to the jump),
    // the autumn day 25; every other shift before the last (cut by the range) is 24 hours.
    const odd = shifts.slice(0, -1).map(hours).filter((length) => length !== 24).sort();
    expect(odd).toEqual(changes === 0 ? [] : time === '02:30' ? [23.5, 23.5, 25] : [23, 25]);
  });
});

describe('handoffs on both sides of every DST change of 2026', () => {
  const sequence = (zone: string, start: string, days: number, type: 'daily' | 'weekly' = 'daily', length = 1) => {
    const rules = schedule(zone, layer({ start, rotation: { type, length }, members: [A, B] }));
    const first = instantOf(localDate(...(start.slice(0, 10).split('-').map(Number) as [number, number, number])), { hour: 0, minute: 0 }, zone);
    return starts(renderShifts(rules, [], iso(first), iso(first + days * DAY)));
  };

  it('09:00 New York: 14:00Z in winter, 13:00Z in summer', () => {
    expect(sequence('America/New_York', '2026-03-07T09:00', 3)).toEqual(['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z']);
    expect(sequence('America/New_York', '2026-10-31T09:00', 3)).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z']);
  });

  it('09:00 Berlin: 08:00Z in winter, 07:00Z in summer', () => {
    expect(sequence('Europe/Berlin', '2026-03-28T09:00', 3)).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    expect(sequence('Europe/Berlin', '2026-10-24T09:00', 3)).toEqual(['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
  });

  it('09:00 Sydney (southern DST: summer in January): 22:00Z the day before in summer, 23:00Z in winter', () => {
    expect(sequence('Australia/Sydney', '2026-04-04T09:00', 3)).toEqual(['2026-04-03T22:00:00.000Z', '2026-04-04T23:00:00.000Z', '2026-04-05T23:00:00.000Z']);
    expect(sequence('Australia/Sydney', '2026-10-03T09:00', 3)).toEqual(['2026-10-02T23:00:00.000Z', '2026-10-03T22:00:00.000Z', '2026-10-04T22:00:00.000Z']);
  });

  it('09:00 Kolkata (+05:30, no DST) and UTC never move', () => {
    expect(sequence('Asia/Kolkata', '2026-03-28T09:00', 3)).toEqual(['2026-03-28T03:30:00.000Z', '2026-03-29T03:30:00.000Z', '2026-03-30T03:30:00.000Z']);
    expect(sequence('Asia/Kolkata', '2026-10-24T09:00', 3)).toEqual(['2026-10-24T03:30:00.000Z', '2026-10-25T03:30:00.000Z', '2026-10-26T03:30:00.000Z']);
    expect(sequence('UTC', '2026-03-28T09:00', 3)).toEqual(['2026-03-28T09:00:00.000Z', '2026-03-29T09:00:00.000Z', '2026-03-30T09:00:00.000Z']);
  });

  it('a handoff in the spring-forward gap happens when the clocks jump (the first valid instant after it)', () => {
    // New York skips 02:00–03:00 on 8 March; Berlin on 29 March; Sydney on 4 October.
    expect(sequence('America/New_York', '2026-03-07T02:30', 3)).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(sequence('Europe/Berlin', '2026-03-28T02:30', 3)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(sequence('Australia/Sydney', '2026-10-03T02:30', 3)).toEqual(['2026-10-02T16:30:00.000Z', '2026-10-03T16:00:00.000Z', '2026-10-04T15:30:00.000Z']);
    // A gap starting on the hour: 02:00 itself does not exist either.
    expect(sequence('Europe/Berlin', '2026-03-28T02:00', 3)).toEqual(['2026-03-28T01:00:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:00:00.000Z']);
  });

  it('a handoff in the fall-back overlap happens at its first occurrence', () => {
    // New York repeats 01:00–02:00 on 1 November; Berlin 02:00–03:00 on 25 October; Sydney 02:00–03:00 on 5 April.
    expect(sequence('America/New_York', '2026-10-31T01:30', 3)).toEqual(['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(sequence('Europe/Berlin', '2026-10-24T02:30', 3)).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    expect(sequence('Australia/Sydney', '2026-04-04T02:30', 3)).toEqual(['2026-04-03T15:30:00.000Z', '2026-04-04T15:30:00.000Z', '2026-04-05T16:30:00.000Z']);
  });

  it('a layer that starts in a gap starts when the clocks jump', () => {
    const rules = schedule('Europe/Berlin', layer({ start: '2026-03-29T02:30', rotation: { type: 'hourly', length: 4 }, members: [A, B] }));
    expect(renderShifts(rules, [], '2026-03-28T00:00:00.000Z', '2026-03-29T09:00:00.000Z')).toEqual([
      { user_id: A, start: '2026-03-29T01:00:00.000Z', end: '2026-03-29T05:00:00.000Z', source: 'layer', layer: 'primary' },
      { user_id: B, start: '2026-03-29T05:00:00.000Z', end: '2026-03-29T09:00:00.000Z', source: 'layer', layer: 'primary' },
    ]);
  });

  it('weekly rotations of two weeks keep their wall-clock time across both changes', () => {
    // Berlin, Mondays 09:00 every two weeks from 16 March: 30 March is summer time, 26 October winter again.
    const handoffs = sequence('Europe/Berlin', '2026-03-16T09:00', 240, 'weekly', 2);
    expect(handoffs.slice(0, 2)).toEqual(['2026-03-16T08:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    expect(handoffs.slice(15, 18)).toEqual(['2026-10-12T07:00:00.000Z', '2026-10-26T08:00:00.000Z', '2026-11-09T08:00:00.000Z']);
    for (const handoff of handoffs) expect(wall('Europe/Berlin', handoff).time).toBe('09:00');
  });

  it('daily rotations of three days count calendar days, not 72-hour blocks', () => {
    expect(sequence('America/New_York', '2026-03-05T09:00', 9, 'daily', 3)).toEqual(['2026-03-05T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-11T13:00:00.000Z']);
  });

  it('hourly rotations are fixed durations: their local times move at a DST change', () => {
    const rules = schedule('Europe/Berlin', layer({ start: '2026-03-28T20:00', rotation: { type: 'hourly', length: 5 }, members: [A, B, C] }));
    const shifts = renderShifts(rules, [], '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z');
    expect(shifts[0]).toMatchObject({ user_id: A, start: '2026-03-28T19:00:00.000Z', end: '2026-03-29T00:00:00.000Z' });
    for (const shift of shifts.slice(0, -1)) expect(hours(shift)).toBe(5);
    expect(shifts.map((shift) => shift.user_id).slice(0, 4)).toEqual([A, B, C, A]);
    // 20:00 CET, then 01:00, 07:00 CEST (the lost hour), …; 19:00Z is 21:00 in summer, 20:00 in winter again.
    expect(shifts.slice(0, 3).map((shift) => wall('Europe/Berlin', shift.start).time)).toEqual(['20:00', '01:00', '07:00']);
    const summer = shifts.find((shift) => shift.start === '2026-06-26T19:00:00.000Z');
    expect(summer && wall('Europe/Berlin', summer.start).time).toBe('21:00');
    const winter = shifts.find((shift) => shift.start === '2026-11-03T19:00:00.000Z');
    expect(winter && wall('Europe/Berlin', winter.start).time).toBe('20:00');
    expect(shifts.at(-1)!.end).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('a handoff_time other than the time of day of start', () => {
  const run = (zone: string, start: string, handoff_time: string, type: 'daily' | 'weekly', length: number, from: string, to: string) =>
    renderShifts(schedule(zone, layer({ start, handoff_time, rotation: { type, length }, members: [A, B, C] })), [], from, to).map((shift) => [shift.user_id, shift.start, shift.end]);

  it('runs the first shift from start to the first handoff after it, on the grid of start\'s date', () => {
    // Berlin, Monday 2 March 12:00 with 09:00 handoffs: Ana until Tuesday 09:00 (21 hours), then whole days.
    expect(run('Europe/Berlin', '2026-03-02T12:00', '09:00', 'daily', 1, '2026-03-01T00:00:00.000Z', '2026-03-04T08:00:00.000Z')).toEqual([
      [A, '2026-03-02T11:00:00.000Z', '2026-03-03T08:00:00.000Z'],
      [B, '2026-03-03T08:00:00.000Z', '2026-03-04T08:00:00.000Z'],
    ]);
    // Starting at 06:00 with 09:00 handoffs: Ana's first shift is the three hours before the first handoff that day.
    expect(run('Europe/Berlin', '2026-03-02T06:00', '09:00', 'daily', 1, '2026-03-01T00:00:00.000Z', '2026-03-03T08:00:00.000Z')).toEqual([
      [A, '2026-03-02T05:00:00.000Z', '2026-03-02T08:00:00.000Z'],
      [B, '2026-03-02T08:00:00.000Z', '2026-03-03T08:00:00.000Z'],
    ]);
    // Three-day turns keep the grid of start's date: handoffs on 5 and 8 March, not 3 and 6.
    expect(run('UTC', '2026-03-02T12:00', '09:00', 'daily', 3, '2026-03-01T00:00:00.000Z', '2026-03-08T12:00:00.000Z')).toEqual([
      [A, '2026-03-02T12:00:00.000Z', '2026-03-05T09:00:00.000Z'],
      [B, '2026-03-05T09:00:00.000Z', '2026-03-08T09:00:00.000Z'],
      [C, '2026-03-08T09:00:00.000Z', '2026-03-08T12:00:00.000Z'],
    ]);
  });

  it('a weekly rotation hands off on start\'s weekday at handoff_time, across the change to summer time', () => {
    // Wednesday 25 March 12:00 CET, Wednesday handoffs at 09:00: 1 April 09:00 is already summer time (07:00Z).
    expect(run('Europe/Berlin', '2026-03-25T12:00', '09:00', 'weekly', 1, '2026-03-20T00:00:00.000Z', '2026-04-08T07:00:00.000Z')).toEqual([
      [A, '2026-03-25T11:00:00.000Z', '2026-04-01T07:00:00.000Z'],
      [B, '2026-04-01T07:00:00.000Z', '2026-04-08T07:00:00.000Z'],
    ]);
    // New York, Friday 30 October 18:00 EDT, Monday handoffs would not be the grid: Friday 08:00 it is (EST from 1 November).
    expect(run('America/New_York', '2026-10-30T18:00', '08:00', 'weekly', 1, '2026-10-30T00:00:00.000Z', '2026-11-13T13:00:00.000Z')).toEqual([
      [A, '2026-10-30T22:00:00.000Z', '2026-11-06T13:00:00.000Z'],
      [B, '2026-11-06T13:00:00.000Z', '2026-11-13T13:00:00.000Z'],
    ]);
  });

  it('a start in a spring-forward gap whose handoff falls on the same jump makes a whole first turn', () => {
    // 02:30 on 29 March does not exist in Berlin: the layer starts at the jump (01:00Z), which is 03:00 CEST,
    // the handoff time itself; so the first handoff after start is the next day's.
    expect(run('Europe/Berlin', '2026-03-29T02:30', '03:00', 'daily', 1, '2026-03-28T00:00:00.000Z', '2026-03-31T01:00:00.000Z')).toEqual([
      [A, '2026-03-29T01:00:00.000Z', '2026-03-30T01:00:00.000Z'],
      [B, '2026-03-30T01:00:00.000Z', '2026-03-31T01:00:00.000Z'],
    ]);
  });

  it('property: across a DST change, the first shift begins at start and every handoff after is at handoff_time, on the grid of start\'s date', () => {
    const changes: Record<string, string[]> = {
      'America/New_York': ['2026-03-08', '2026-11-01'],
      'Europe/Berlin': ['2026-03-29', '2026-10-25'],
      'Australia/Sydney': ['2026-04-05', '2026-10-04'],
      'Australia/Lord_Howe': ['2026-04-05', '2026-10-04'],
      'America/Santiago': ['2026-04-05', '2026-09-06'],
    };
    const arbitrary = fc.record({
      zone: fc.constantFrom(...Object.keys(changes)),
      change: fc.constantFrom(0, 1),
      before: fc.integer({ min: 0, max: 20 }),
      startTime: wallTime,
      handoff: wallTime,
      type: fc.constantFrom('daily' as const, 'weekly' as const),
      length: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(arbitrary, ({ zone, change, before, startTime, handoff, type, length }) => {
        const startDate = new Date(Date.parse(`${changes[zone]![change]}T00:00:00Z`) - before * DAY).toISOString().slice(0, 10);
        const start = `${startDate}T${startTime}`;
        const rules = schedule(zone, layer({ start, handoff_time: handoff, rotation: { type, length }, members: [A, B, C] }));
        const origin = layerOrigin(rules, rules.layers[0]!);
        const days = length * (type === 'weekly' ? 7 : 1);
        // Long enough to cross the change and hand off a few times after it.
        const shifts = renderShifts(rules, [], iso(origin - DAY), iso(origin + (before + 3 * days + 2) * DAY));
        expect(shifts[0]!.start).toBe(iso(origin));
        const handoffs = shifts.slice(1).map((shift) => shift.start);
        expect(handoffs.length).toBeGreaterThanOrEqual(3);
        let expectedDate: string | undefined;
        handoffs.forEach((at, index) => {
          expect(shifts[index]!.end).toBe(at); // no gap
          const local = wall(zone, at);
          // At handoff_time, or (a spring-forward gap) the jump past it: the minute before, the local clock was still
          // before it (Santiago's gap is at midnight: the day before).
          if (local.time !== handoff) {
            const previous = wall(zone, Date.parse(at) - 60_000);
            const target = `${local.date}T${handoff}`;
            expect(`${previous.date}T${previous.time}` < target && target < `${local.date}T${local.time}`).toBe(true);
          }
          if (expectedDate) expect(local.date).toBe(expectedDate);
          else {
            // The first handoff after start: on start's date if one lies after start that day, else one period on.
            const startWall = wall(zone, origin);
            const sameDay = startWall.date === startDate && startWall.time < handoff && Date.parse(at) > origin;
            const onStartDate = local.date === startDate;
            if (onStartDate) expect(Date.parse(at)).toBeGreaterThan(origin);
            else {
              expect(local.date).toBe(new Date(Date.parse(`${startDate}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10));
              expect(sameDay).toBe(false);
            }
          }
          expectedDate = new Date(Date.parse(`${local.date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('restrictions', () => {
  it('cover only their windows; a window whose end is before its start ends the next day, by local wall clock on a DST night', () => {
    // Saturday nights 22:00–06:00 in Berlin: the night of the change to summer time is 7 hours, to winter time 9.
    const rules = schedule(
      'Europe/Berlin',
      layer({ start: '2026-03-02T09:00', rotation: { type: 'weekly', length: 1 }, members: [A, B], restrictions: [{ days: ['sat'], start: '22:00', end: '06:00' }] }),
    );
    expect(renderShifts(rules, [], '2026-03-21T00:00:00.000Z', '2026-04-05T00:00:00.000Z')).toEqual([
      { user_id: A, start: '2026-03-21T21:00:00.000Z', end: '2026-03-22T05:00:00.000Z', source: 'layer', layer: 'primary' },
      { user_id: B, start: '2026-03-28T21:00:00.000Z', end: '2026-03-29T04:00:00.000Z', source: 'layer', layer: 'primary' },
      { user_id: A, start: '2026-04-04T20:00:00.000Z', end: '2026-04-05T00:00:00.000Z', source: 'layer', layer: 'primary' }, // cut by the range
    ]);
    expect(renderShifts(rules, [], '2026-10-24T00:00:00.000Z', '2026-10-26T00:00:00.000Z')).toEqual([
      { user_id: B, start: '2026-10-24T20:00:00.000Z', end: '2026-10-25T05:00:00.000Z', source: 'layer', layer: 'primary' },
    ]);
  });

  it('split a shift at a handoff inside a window and merge windows that touch', () => {
    // Weeknights 17:00–09:00 and whole weekends in New York, weekly handoff Monday 09:00.
    const rules = schedule(
      'America/New_York',
      layer({
        start: '2026-01-05T09:00',
        rotation: { type: 'weekly', length: 1 },
        members: [A, B],
        restrictions: [
          { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '17:00', end: '09:00' },
          { days: ['sat', 'sun'], start: '00:00', end: '00:00' },
        ],
      }),
    );
    const shifts = renderShifts(rules, [], '2026-01-09T00:00:00.000Z', '2026-01-14T00:00:00.000Z');
    expect(shifts).toEqual([
      { user_id: A, start: '2026-01-09T00:00:00.000Z', end: '2026-01-09T14:00:00.000Z', source: 'layer', layer: 'primary' },
      // Friday 17:00 to Monday 00:00 is one stretch (the weekend's windows touch Friday night's).
      { user_id: A, start: '2026-01-09T22:00:00.000Z', end: '2026-01-12T05:00:00.000Z', source: 'layer', layer: 'primary' },
      { user_id: B, start: '2026-01-12T22:00:00.000Z', end: '2026-01-13T14:00:00.000Z', source: 'layer', layer: 'primary' },
      { user_id: B, start: '2026-01-13T22:00:00.000Z', end: '2026-01-14T00:00:00.000Z', source: 'layer', layer: 'primary' },
    ]);
  });

  it('a window lying wholly in a spring-forward gap is empty that day; a window starting in one starts at the jump', () => {
    const rules = schedule(
      'Europe/Berlin',
      layer({ start: '2026-03-01T00:00', rotation: { type: 'daily', length: 1 }, members: [A], restrictions: [{ days: ['sun'], start: '02:00', end: '02:45' }, { days: ['sun'], start: '02:30', end: '02:30' }] }),
    );
    // 02:30 Sunday to 02:30 Monday: on 29 March both ends are in the gap or after it.
    const shifts = renderShifts(rules, [], '2026-03-28T00:00:00.000Z', '2026-04-07T00:00:00.000Z');
    expect(shifts).toEqual([
      { user_id: A, start: '2026-03-29T01:00:00.000Z', end: '2026-03-30T00:30:00.000Z', source: 'layer', layer: 'primary' },
      { user_id: A, start: '2026-04-05T00:00:00.000Z', end: '2026-04-06T00:30:00.000Z', source: 'layer', layer: 'primary' },
    ]);
  });

  it('a window crossing midnight in Kolkata and in Sydney', () => {
    const night = [{ days: ['fri' as const], start: '23:30', end: '01:00' }];
    const kolkata = schedule('Asia/Kolkata', layer({ start: '2026-01-01T09:00', rotation: { type: 'daily', length: 1 }, members: [A, B], restrictions: night }));
    expect(renderShifts(kolkata, [], '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z')).toEqual([
      { user_id: B, start: '2026-01-02T18:00:00.000Z', end: '2026-01-02T19:30:00.000Z', source: 'layer', layer: 'primary' },
    ]);
    // Sydney, Friday 2 October 23:30 AEST to Saturday 01:00 AEST (the change is on Sunday morning).
    const sydney = schedule('Australia/Sydney', layer({ start: '2026-10-01T09:00', rotation: { type: 'daily', length: 1 }, members: [A, B], restrictions: night }));
    expect(renderShifts(sydney, [], '2026-10-01T00:00:00.000Z', '2026-10-05T00:00:00.000Z')).toEqual([
      { user_id: B, start: '2026-10-02T13:30:00.000Z', end: '2026-10-02T15:00:00.000Z', source: 'layer', layer: 'primary' },
    ]);
  });
});

describe('layers and overrides', () => {
  const base = layer({ name: 'weekly', start: '2026-01-05T09:00', rotation: { type: 'weekly', length: 1 }, members: [A, B] });
  const business = layer({
    name: 'business hours',
    start: '2026-01-05T09:00',
    rotation: { type: 'daily', length: 1 },
    members: [C, D],
    restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
  });
  const rules = schedule('UTC', base, business);
  const override = (id: string, user: string, start: string, end: string, created: string): ScheduleOverride => ({
    id,
    user_id: user,
    start: `2026-01-${start}:00.000Z`,
    end: `2026-01-${end}:00.000Z`,
    created_at: `2026-01-01T00:00:0${created}.000Z`,
  });

  it('the later layer wins where it covers a time', () => {
    expect(renderShifts(rules, [], '2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z')).toEqual([
      { user_id: A, start: '2026-01-06T00:00:00.000Z', end: '2026-01-06T09:00:00.000Z', source: 'layer', layer: 'weekly' },
      { user_id: D, start: '2026-01-06T09:00:00.000Z', end: '2026-01-06T17:00:00.000Z', source: 'layer', layer: 'business hours' },
      { user_id: A, start: '2026-01-06T17:00:00.000Z', end: '2026-01-07T00:00:00.000Z', source: 'layer', layer: 'weekly' },
    ]);
  });

  it('overrides win over every layer; where they overlap the one created later wins, whatever their order in the list', () => {
    const first = override('o1', B, '06T08:00', '06T12:00', '1');
    const later = override('o2', C, '06T10:00', '06T20:00', '2');
    const inside = override('o0', B, '06T14:00', '06T15:00', '0'); // created first: hidden under o2
    const expected = [
      { user_id: A, start: '2026-01-06T00:00:00.000Z', end: '2026-01-06T08:00:00.000Z', source: 'layer', layer: 'weekly' },
      { user_id: B, start: '2026-01-06T08:00:00.000Z', end: '2026-01-06T10:00:00.000Z', source: 'override' },
      { user_id: C, start: '2026-01-06T10:00:00.000Z', end: '2026-01-06T20:00:00.000Z', source: 'override' },
      { user_id: A, start: '2026-01-06T20:00:00.000Z', end: '2026-01-07T00:00:00.000Z', source: 'layer', layer: 'weekly' },
    ];
    expect(renderShifts(rules, [later, inside, first], '2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z')).toEqual(expected);
    expect(renderShifts(rules, [first, later, inside], '2026-01-06T00:00:00.000Z', '2026-01-07T00:00:00.000Z')).toEqual(expected);
    // Created at the same instant: the greater id wins.
    const tie = override('o3', D, '06T11:00', '06T12:00', '2');
    expect(renderShifts(rules, [tie, later], '2026-01-06T11:00:00.000Z', '2026-01-06T12:00:00.000Z')).toEqual([
      { user_id: D, start: '2026-01-06T11:00:00.000Z', end: '2026-01-06T12:00:00.000Z', source: 'override' },
    ]);
  });

  it("one person's back-to-back time is one shift whatever its sources, shown with its first piece's source", () => {
    // Ana's layer time, then her own override, then her layer time again: one shift, from the layer.
    expect(
      renderShifts(rules, [override('o1', A, '06T01:00', '06T02:00', '1'), override('o2', A, '06T02:00', '06T03:00', '2')], '2026-01-06T00:00:00.000Z', '2026-01-06T04:00:00.000Z'),
    ).toEqual([{ user_id: A, start: '2026-01-06T00:00:00.000Z', end: '2026-01-06T04:00:00.000Z', source: 'layer', layer: 'weekly' }]);
    // Carla's override that runs into her business-hours turn: one shift, an override (its first piece).
    expect(renderShifts(rules, [override('o1', C, '05T07:00', '05T09:00', '1')], '2026-01-05T06:00:00.000Z', '2026-01-05T18:00:00.000Z')).toEqual([
      { user_id: C, start: '2026-01-05T07:00:00.000Z', end: '2026-01-05T17:00:00.000Z', source: 'override' },
      { user_id: A, start: '2026-01-05T17:00:00.000Z', end: '2026-01-05T18:00:00.000Z', source: 'layer', layer: 'weekly' },
    ]);
    // Two layers: Ana's weekly turn, then Ana in the later layer during business hours: one shift, the first layer's.
    const both = schedule('UTC', base, { ...business, name: 'ana days', members: [A] });
    expect(renderShifts(both, [], '2026-01-06T00:00:00.000Z', '2026-01-06T20:00:00.000Z')).toEqual([
      { user_id: A, start: '2026-01-06T00:00:00.000Z', end: '2026-01-06T20:00:00.000Z', source: 'layer', layer: 'weekly' },
    ]);
    // Cut by the range, a shift shows the first piece in the range.
    expect(renderShifts(rules, [override('o1', C, '05T07:00', '05T09:00', '1')], '2026-01-05T10:00:00.000Z', '2026-01-05T12:00:00.000Z')).toEqual([
      { user_id: C, start: '2026-01-05T10:00:00.000Z', end: '2026-01-05T12:00:00.000Z', source: 'layer', layer: 'business hours' },
    ]);
    // onCallAt names the whole shift, as /shifts shows it from its start.
    expect(onCallAt(rules, [override('o1', C, '05T07:00', '05T09:00', '1')], '2026-01-05T12:00:00.000Z')).toEqual([
      { user_id: C, source: 'override', layer: null, from: '2026-01-05T07:00:00.000Z', until: '2026-01-05T17:00:00.000Z' },
    ]);
  });

  it('an override covers time no layer covers, and is cut to the range', () => {
    const shifts = renderShifts(rules, [override('o1', D, '01T00:00', '05T10:00', '1')], '2026-01-04T00:00:00.000Z', '2026-01-05T12:00:00.000Z');
    expect(shifts).toEqual([
      { user_id: D, start: '2026-01-04T00:00:00.000Z', end: '2026-01-05T10:00:00.000Z', source: 'override' },
      { user_id: C, start: '2026-01-05T10:00:00.000Z', end: '2026-01-05T12:00:00.000Z', source: 'layer', layer: 'business hours' },
    ]);
  });

  it('a person twice in a row in the rotation is one shift; nothing before a layer starts', () => {
    const twice = schedule('UTC', layer({ start: '2026-01-01T00:00', rotation: { type: 'daily', length: 1 }, members: [A, A, B] }));
    expect(renderShifts(twice, [], '2025-12-01T00:00:00.000Z', '2026-01-05T00:00:00.000Z').map((shift) => [shift.user_id, shift.start, shift.end])).toEqual([
      [A, '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z'],
      [B, '2026-01-03T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
      [A, '2026-01-04T00:00:00.000Z', '2026-01-05T00:00:00.000Z'],
    ]);
    expect(renderShifts(twice, [], '2025-12-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')).toEqual([]);
    expect(onCallAt(twice, [], '2025-12-31T23:59:59.999Z')).toEqual([]);
  });
});

describe('people who left (removed from the team)', () => {
  const rota = layer({ name: 'weekly', start: '2026-01-05T09:00', rotation: { type: 'weekly', length: 1 }, members: [A, B, C] });
  const rules: ScheduleRules = { ...schedule('UTC', rota), left: { [B]: '2026-01-14T12:00:00.000Z' } };
  const bOverride = (start: string, end: string): ScheduleOverride => ({ id: `o-${start}`, user_id: B, start, end, created_at: '2026-01-01T00:00:00.000Z' });

  it('keep their turns and overrides before they left; from then on the rotation goes on as if they had never been in it', () => {
    const overrides = [bOverride('2026-01-06T10:00:00.000Z', '2026-01-06T11:00:00.000Z'), bOverride('2026-01-20T10:00:00.000Z', '2026-01-20T11:00:00.000Z')];
    expect(renderShifts(rules, overrides, '2026-01-05T09:00:00.000Z', '2026-01-26T09:00:00.000Z').map((shift) => [shift.user_id, shift.start, shift.end, shift.source])).toEqual([
      [A, '2026-01-05T09:00:00.000Z', '2026-01-06T10:00:00.000Z', 'layer'],
      [B, '2026-01-06T10:00:00.000Z', '2026-01-06T11:00:00.000Z', 'override'],
      [A, '2026-01-06T11:00:00.000Z', '2026-01-12T09:00:00.000Z', 'layer'],
      [B, '2026-01-12T09:00:00.000Z', '2026-01-14T12:00:00.000Z', 'layer'],
      // [A, C] from the layer's start: C's week from the 12th, A's from the 19th; B's later override no longer counts.
      [C, '2026-01-14T12:00:00.000Z', '2026-01-19T09:00:00.000Z', 'layer'],
      [A, '2026-01-19T09:00:00.000Z', '2026-01-26T09:00:00.000Z', 'layer'],
    ]);
    expect(onCallAt(rules, overrides, '2026-01-13T00:00:00.000Z')).toEqual([{ user_id: B, source: 'layer', layer: 'weekly', from: '2026-01-12T09:00:00.000Z', until: '2026-01-14T12:00:00.000Z' }]);
    expect(onCallAt(rules, overrides, '2026-01-14T12:00:00.000Z')).toEqual([{ user_id: C, source: 'layer', layer: 'weekly', from: '2026-01-14T12:00:00.000Z', until: '2026-01-19T09:00:00.000Z' }]);
    expect(onCallAt(rules, overrides, '2026-01-20T10:30:00.000Z')[0]!.user_id).toBe(A);
  });

  it('property: before the departure the shifts are those with everyone, from it on those without the person, never them', () => {
    fc.assert(
      fc.property(caseArbitrary(true), fc.constantFrom(...USERS), fc.double({ min: 0, max: 1, noNaN: true }), ({ rules, overrides, from, to }, leaver, fraction) => {
        const at = Math.floor(from + fraction * (to - from));
        const withLeaver = { ...rules, left: { [leaver]: iso(at) } };
        const shifts = renderShifts(withLeaver, overrides, iso(from), iso(to));
        const without = (list: Shift[]) => list.map((shift) => [shift.user_id, shift.start, shift.end]);
        const before = renderShifts(rules, overrides, iso(from), iso(at));
        const layers = rules.layers.map((l) => ({ ...l, members: l.members.filter((user) => user !== leaver) })).filter((l) => l.members.length > 0);
        const after = at < to ? renderShifts({ ...rules, layers }, overrides.filter((o) => o.user_id !== leaver), iso(at), iso(to)) : [];
        // Joined at the departure where one person's time runs across it.
        const joined: Shift[] = [];
        for (const shift of [...before, ...after]) {
          const last = joined.at(-1);
          if (last && last.end === shift.start && last.user_id === shift.user_id) joined[joined.length - 1] = { ...last, end: shift.end };
          else joined.push(shift);
        }
        expect(without(shifts)).toEqual(without(joined));
        for (const shift of shifts) if (shift.user_id === leaver) expect(Date.parse(shift.end)).toBeLessThanOrEqual(at);
      }),
      { numRuns: 100 },
    );
  });
});

describe('onCallAt', () => {
  const rules = schedule('Europe/Berlin', layer({ start: '2026-03-23T09:00', rotation: { type: 'weekly', length: 1 }, members: [A, B] }));

  it('names the person on call, their layer and the whole shift, across a DST change', () => {
    expect(onCallAt(rules, [], '2026-03-29T12:00:00.000Z')).toEqual([
      { user_id: A, source: 'layer', layer: 'primary', from: '2026-03-23T08:00:00.000Z', until: '2026-03-30T07:00:00.000Z' },
    ]);
    expect(onCallAt(rules, [], '2026-03-30T07:00:00.000Z')).toEqual([
      { user_id: B, source: 'layer', layer: 'primary', from: '2026-03-30T07:00:00.000Z', until: '2026-04-06T07:00:00.000Z' },
    ]);
  });

  it('names an override with a null layer, and says null where the shift reaches past 90 days', () => {
    const override: ScheduleOverride = { id: 'o', user_id: C, start: '2026-04-01T10:00:00.000Z', end: '2026-04-01T12:00:00.000Z', created_at: '2026-03-01T00:00:00.000Z' };
    expect(onCallAt(rules, [override], '2026-04-01T11:00:00.000Z')).toEqual([
      { user_id: C, source: 'override', layer: null, from: '2026-04-01T10:00:00.000Z', until: '2026-04-01T12:00:00.000Z' },
    ]);
    const alone = schedule('UTC', layer({ start: '2026-01-01T00:00', rotation: { type: 'hourly', length: 1 }, members: [A] }));
    expect(onCallAt(alone, [], '2026-02-01T00:00:00.000Z')).toEqual([{ user_id: A, source: 'layer', layer: 'primary', from: '2026-01-01T00:00:00.000Z', until: null }]);
    expect(onCallAt(alone, [], '2026-06-01T00:00:00.000Z')).toEqual([{ user_id: A, source: 'layer', layer: 'primary', from: null, until: null }]);
  });
});

describe('cost', () => {
  it('rendering 90 days ten years after a layer starts takes the steps rendering its first 90 days takes', () => {
    const rules = schedule(
      'Europe/Berlin',
      layer({ name: 'daily', start: '2026-01-05T09:00', rotation: { type: 'daily', length: 1 }, members: [A, B, C] }),
      layer({ name: 'hourly', start: '2026-01-05T09:00', rotation: { type: 'hourly', length: 6 }, members: [C, D], restrictions: [{ days: ['sat', 'sun'], start: '22:00', end: '06:00' }] }),
      layer({ name: 'weekly', start: '2026-01-05T09:00', rotation: { type: 'weekly', length: 2 }, members: [D, A], restrictions: [{ days: ['mon', 'wed'], start: '09:00', end: '17:00' }] }),
    );
    const steps = (from: string, to: string) => {
      const stats: RenderStats = { steps: 0 };
      renderShifts(rules, [], from, to, stats);
      return stats.steps;
    };
    // Both ranges start on a Monday in winter at 08:00Z (09:00 CET) and last 90 days (12 weeks and 6 days).
    const first = steps('2026-01-05T08:00:00.000Z', '2026-04-05T07:00:00.000Z');
    const later = steps('2036-01-07T08:00:00.000Z', '2036-04-06T07:00:00.000Z'); // 7 January 2036 is a Monday
    expect(first).toBeGreaterThan(300);
    // Walking ten years of turns would take thousands more (3,652 daily handoffs alone).
    expect(later).toBe(first);
  });
});

// ---- Properties over random schedules ----

const USERS = ['u1', 'u2', 'u3', 'u4', 'u5'];
const PROPERTY_ZONES = [...ZONES, 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kathmandu'];
const two = (n: number) => String(n).padStart(2, '0');
const wallTime = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([h, m]) => `${two(h)}:${two(m)}`);
const dayList = fc.uniqueArray(fc.constantFrom('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun' as const), { minLength: 1, maxLength: 7 });

function layerArbitrary(restricted: boolean) {
  return fc
    .record({
      date: fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2027-06-01T00:00:00Z'), noInvalidDate: true }),
      time: wallTime,
      rotation: fc.oneof(
        fc.record({ type: fc.constant('hourly' as const), length: fc.integer({ min: 1, max: 48 }) }),
        fc.record({ type: fc.constant('daily' as const), length: fc.integer({ min: 1, max: 10 }) }),
        fc.record({ type: fc.constant('weekly' as const), length: fc.integer({ min: 1, max: 3 }) }),
      ),
      members: fc.array(fc.constantFrom(...USERS), { minLength: 1, maxLength: 4 }),
      restrictions: restricted ? fc.array(fc.record({ days: dayList, start: wallTime, end: wallTime }), { maxLength: 2 }) : fc.constant(undefined),
    })
    .map(({ date, time, rotation, members, restrictions }) => layer({ start: `${date.toISOString().slice(0, 10)}T${time}`, rotation, members, ...(restrictions ? { restrictions } : {}) }));
}

const scheduleArbitrary = (restricted: boolean) =>
  fc.record({ zone: fc.constantFrom(...PROPERTY_ZONES), layers: fc.array(layerArbitrary(restricted), { minLength: 1, maxLength: 3 }) }).map(({ zone, layers }) =>
    schedule(zone, ...layers.map((l, index) => ({ ...l, name: `layer ${index}` }))),
  );

const rangeArbitrary = fc.record({
  from: fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2027-12-01T00:00:00Z') }),
  days: fc.integer({ min: 1, max: 21 }),
});

const overridesArbitrary = (from: number) =>
  fc.array(
    fc.record({ offset: fc.integer({ min: -5 * DAY, max: 21 * DAY }), length: fc.integer({ min: 60_000, max: 6 * DAY }), user: fc.constantFrom(...USERS), created: fc.integer({ min: 0, max: 9 }) }),
    { maxLength: 4 },
  ).map((list) =>
    list.map(({ offset, length, user, created }, index): ScheduleOverride => ({
      id: `o${index}`,
      user_id: user,
      start: iso(from + offset),
      end: iso(from + offset + length),
      created_at: `2026-01-01T00:00:0${created}.000Z`,
    })),
  );

const caseArbitrary = (restricted: boolean) =>
  fc.tuple(scheduleArbitrary(restricted), rangeArbitrary).chain(([rules, { from, days }]) =>
    fc.record({
      rules: fc.constant(rules),
      from: fc.constant(from),
      to: fc.constant(from + days * DAY),
      overrides: overridesArbitrary(from),
      t: fc.integer({ min: from, max: from + days * DAY - 1 }),
      mid: fc.integer({ min: from + 1, max: from + days * DAY - 1 }),
    }),
  );

const layerOrigin = (rules: ScheduleRules, l: Layer) => {
  const parts = parseLocalDateTime(l.start)!;
  return instantOf(localDate(parts.year, parts.month, parts.day), parts, rules.time_zone);
};

describe('properties', () => {
  it('shifts are sorted, inside the range, never overlap, and are merged', () => {
    fc.assert(
      fc.property(caseArbitrary(true), ({ rules, overrides, from, to }) => {
        const shifts = renderShifts(rules, overrides, iso(from), iso(to));
        shifts.forEach((shift, index) => {
          expect(Date.parse(shift.start)).toBeGreaterThanOrEqual(from);
          expect(Date.parse(shift.end)).toBeLessThanOrEqual(to);
          expect(shift.start < shift.end).toBe(true);
          const previous = shifts[index - 1];
          if (previous) {
            expect(previous.end <= shift.start).toBe(true);
            // Back-to-back shifts are of different people (one person's are merged, whatever their sources).
            if (previous.end === shift.start) expect(previous.user_id).not.toBe(shift.user_id);
          }
        });
      }),
      { numRuns: 150 },
    );
  });

  it('leave no gap inside a layer\'s coverage: without restrictions everything from the first layer\'s start is covered', () => {
    fc.assert(
      fc.property(caseArbitrary(false), ({ rules, overrides, from, to }) => {
        const shifts = renderShifts(rules, overrides, iso(from), iso(to));
        const coveredFrom = Math.max(from, Math.min(...rules.layers.map((l) => layerOrigin(rules, l))));
        if (coveredFrom >= to) return;
        // From the first layer's start on, the shifts follow each other without a gap up to the range's end.
        const covering = shifts.filter((shift) => Date.parse(shift.end) > coveredFrom);
        expect(Date.parse(covering[0]!.start)).toBeLessThanOrEqual(coveredFrom);
        if (!overrides.some((o) => Date.parse(o.start) < coveredFrom)) expect(covering[0]!.start).toBe(iso(coveredFrom));
        for (let index = 1; index < covering.length; index += 1) expect(covering[index]!.start).toBe(covering[index - 1]!.end);
        expect(covering.at(-1)!.end).toBe(iso(to));
      }),
      { numRuns: 150 },
    );
  });

  it("leave no gap inside a layer's coverage with restrictions: uncovered exactly where every layer's windows exclude (by Intl's wall clock), nowhere else", () => {
    const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const weekdays = new Map<string, Intl.DateTimeFormat>();
    const weekdayOf = (zone: string, at: number) => {
      let format = weekdays.get(zone);
      if (!format) weekdays.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short' })));
      return format.format(new Date(at)).toLowerCase().slice(0, 3);
    };
    const offset = (zone: string, at: number) => {
      const { date, time } = wall(zone, at);
      return Date.parse(`${date}T${time}:00Z`) - (at - (((at % 60_000) + 60_000) % 60_000));
    };
    /** The oracle: a restriction window by the local wall clock (one whose end is at or before its start ends the next day). */
    const inWindows = (zone: string, l: Layer, at: number) => {
      const { time } = wall(zone, at);
      const day = weekdayOf(zone, at);
      const yesterday = DAYS[(DAYS.indexOf(day) + 6) % 7]!;
      return l.restrictions!.some((r) =>
        r.end <= r.start ? (r.days.includes(day as never) && time >= r.start) || (r.days.includes(yesterday as never) && time < r.end) : r.days.includes(day as never) && r.start <= time && time < r.end,
      );
    };
    fc.assert(
      fc.property(caseArbitrary(true), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 60, maxLength: 60 }), ({ rules, overrides, from, to }, fractions) => {
        const shifts = renderShifts(rules, overrides, iso(from), iso(to));
        const covered = (at: number) => shifts.some((shift) => Date.parse(shift.start) <= at && at < Date.parse(shift.end));
        const oracle = (at: number) =>
          overrides.some((o) => Date.parse(o.start) <= at && at < Date.parse(o.end)) ||
          rules.layers.some((l) => at >= layerOrigin(rules, l) && (!l.restrictions?.length || inWindows(rules.time_zone, l, at)));
        const points = [...fractions.map((f) => Math.floor(from + f * (to - from - 1))), ...shifts.flatMap((shift) => [Date.parse(shift.start) - 1, Date.parse(shift.end)])];
        for (const at of points) {
          if (at < from || at >= to) continue;
          // Within two hours of a change of offset the wall clock repeats or skips times: the deterministic tests cover those.
          if (offset(rules.time_zone, at - 2 * HOUR) !== offset(rules.time_zone, at + 2 * HOUR)) continue;
          expect(covered(at), `${iso(at)} in ${rules.time_zone}`).toBe(oracle(at));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('onCallAt(t) agrees with the shifts for a random t', () => {
    fc.assert(
      fc.property(caseArbitrary(true), ({ rules, overrides, from, to, t }) => {
        const shifts = renderShifts(rules, overrides, iso(from), iso(to));
        const holding = shifts.find((shift) => Date.parse(shift.start) <= t && t < Date.parse(shift.end));
        const onCall = onCallAt(rules, overrides, iso(t));
        if (!holding) {
          expect(onCall).toEqual([]);
          return;
        }
        expect(onCall).toHaveLength(1);
        const [entry] = onCall;
        expect(entry!.user_id).toBe(holding.user_id);
        // A shift cut by the range shows its first piece in the range; otherwise its own first piece, as onCallAt does.
        if (holding.start !== iso(from)) expect(entry).toMatchObject({ source: holding.source, layer: holding.layer ?? null });
        // Where the range does not cut the shift, its bounds are the entry's.
        if (holding.start !== iso(from)) expect(entry!.from).toBe(holding.start);
        if (holding.end !== iso(to)) expect(entry!.until).toBe(holding.end);
      }),
      { numRuns: 150 },
    );
  });

  it('a range split in two renders the same shifts, and jumping to a range renders what walking from the layers\' start does', () => {
    fc.assert(
      fc.property(caseArbitrary(true), ({ rules, overrides, from, to, mid }) => {
        const whole = renderShifts(rules, overrides, iso(from), iso(to));
        const halves = [...renderShifts(rules, overrides, iso(from), iso(mid)), ...renderShifts(rules, overrides, iso(mid), iso(to))];
        const joined: Shift[] = [];
        for (const shift of halves) {
          const last = joined.at(-1);
          if (last && last.end === shift.start && last.user_id === shift.user_id) joined[joined.length - 1] = { ...last, end: shift.end };
          else joined.push(shift);
        }
        expect(joined).toEqual(whole);
        // From the earliest layer start (at most a few years of turns) to `to`, cut to [from, to).
        const origin = Math.min(from, ...rules.layers.map((l) => layerOrigin(rules, l)));
        // A shift that began before `from` is cut to it and shows its first piece in the range instead: the first
        // shift's attribution is compared only where it starts at `from` in both.
        const walked = renderShifts(rules, overrides, iso(origin), iso(to))
          .filter((shift) => Date.parse(shift.end) > from)
          .map((shift) => (Date.parse(shift.start) < from ? { ...shift, start: iso(from), cut: true } : shift));
        const plain = ({ source: _s, layer: _l, ...rest }: Shift) => rest;
        expect(walked.map((shift) => ('cut' in shift ? plain(shift) : shift))).toEqual(whole.map((shift, index) => ('cut' in (walked[index] ?? {}) ? { ...plain(shift), cut: true } : shift)));
      }),
      { numRuns: 60 },
    );
  });
});
