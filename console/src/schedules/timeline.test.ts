import { describe, expect, it } from 'vitest';
import { describePiece, flagOverrides, layoutTimeline } from './timeline.js';
import { addDays, instantOf, localDate, offsetAt } from './zone.js';

const ana = { user_id: 'a', user_name: 'Ana Lima' };
const ben = { user_id: 'b', user_name: 'Ben Ode' };
const iso = (value: number) => new Date(value).toISOString();

describe('zone', () => {
  it('reads offsets from Intl: Berlin is an hour ahead in winter, two in summer', () => {
    expect(offsetAt(Date.parse('2026-01-15T12:00:00Z'), 'Europe/Berlin')).toBe(3_600_000);
    expect(offsetAt(Date.parse('2026-07-15T12:00:00Z'), 'Europe/Berlin')).toBe(7_200_000);
    expect(offsetAt(Date.parse('2026-07-15T12:00:00Z'), 'Asia/Kolkata')).toBe(19_800_000);
  });

  it('finds the instant of a local time: ordinary, repeated (first occurrence) and skipped (moved forward by the gap)', () => {
    expect(iso(instantOf('2026-11-02T09:00', 'Europe/Berlin'))).toBe('2026-11-02T08:00:00.000Z');
    expect(iso(instantOf('2026-10-25T02:30', 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(instantOf('2026-03-29T02:30', 'Europe/Berlin'))).toBe('2026-03-29T01:30:00.000Z');
    expect(iso(instantOf('2026-11-01', 'America/New_York'))).toBe('2026-11-01T04:00:00.000Z');
    expect(localDate(Date.parse('2026-11-01T03:59:00Z'), 'America/New_York')).toBe('2026-10-31');
  });

  it('moves dates on the calendar across months and years', () => {
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
  });
});

describe('flagOverrides', () => {
  it('splits a merged shift where the person’s own override begins, flagging only the override’s part', () => {
    const pieces = flagOverrides(
      [{ ...ana, start: '2026-11-02T08:00:00.000Z', end: '2026-11-03T12:00:00.000Z' }],
      [
        { user_id: 'a', start: '2026-11-03T08:00:00.000Z', end: '2026-11-03T12:00:00.000Z' },
        { user_id: 'b', start: '2026-11-02T09:00:00.000Z', end: '2026-11-02T10:00:00.000Z' },
      ],
    );
    expect(pieces.map((piece) => [iso(piece.start), iso(piece.end), piece.override])).toEqual([
      ['2026-11-02T08:00:00.000Z', '2026-11-03T08:00:00.000Z', false],
      ['2026-11-03T08:00:00.000Z', '2026-11-03T12:00:00.000Z', true],
    ]);
  });
});

describe('layoutTimeline', () => {
  const tracks = [
    {
      key: 'layer:Weekly',
      label: 'Weekly',
      kind: 'layer' as const,
      shifts: [
        { ...ana, start: '2026-10-24T22:00:00.000Z', end: '2026-10-26T08:00:00.000Z' },
        { ...ben, start: '2026-10-26T08:00:00.000Z', end: '2026-10-27T23:00:00.000Z' },
      ],
    },
    {
      key: 'final',
      label: 'Final',
      kind: 'final' as const,
      shifts: [
        { ...ana, start: '2026-10-24T22:00:00.000Z', end: '2026-10-25T11:00:00.000Z' },
        { ...ben, start: '2026-10-25T11:00:00.000Z', end: '2026-10-25T13:00:00.000Z' },
        { ...ana, start: '2026-10-25T13:00:00.000Z', end: '2026-10-26T08:00:00.000Z' },
        { ...ben, start: '2026-10-26T08:00:00.000Z', end: '2026-10-27T23:00:00.000Z' },
      ],
    },
  ];
  const overrides = [{ user_id: 'b', start: '2026-10-25T11:00:00.000Z', end: '2026-10-25T13:00:00.000Z' }];

  it('cuts each track into local days (a 25-hour day where the clocks go back), positioned as shares of the day', () => {
    const timeline = layoutTimeline({ tracks, overrides, zone: 'Europe/Berlin', firstDate: '2026-10-25', days: 3 });
    expect(timeline.days.map((day) => [day.date, (day.end - day.start) / 3_600_000])).toEqual([
      ['2026-10-25', 25],
      ['2026-10-26', 24],
      ['2026-10-27', 24],
    ]);
    const sunday = timeline.days[0]!;
    const final = sunday.tracks.find((track) => track.kind === 'final')!;
    expect(final.segments.map((segment) => [segment.text, Math.round(segment.left * 100) / 100, Math.round(segment.width * 100) / 100])).toEqual([
      ['Ana Lima 00:00–12:00', 0, 52],
      ['Ben Ode 12:00–14:00, override', 52, 8],
      ['Ana Lima 14:00–24:00', 60, 40],
    ]);
    const layer = sunday.tracks.find((track) => track.kind === 'layer')!;
    expect(layer.segments.map((segment) => [segment.text, segment.override])).toEqual([['Ana Lima 00:00–24:00', false]]);
    const monday = timeline.days[1]!.tracks[0]!.segments.map((segment) => segment.text);
    expect(monday).toEqual(['Ana Lima 00:00–09:00', 'Ben Ode 09:00–24:00']);
    // Tuesday's shift ends at midnight Berlin time (23:00Z): it fills the day and nothing spills into Wednesday.
    expect(timeline.days[2]!.tracks[0]!.segments.map((segment) => segment.text)).toEqual(['Ben Ode 00:00–24:00']);
  });

  it('gives each person one colour across tracks, and says whole pieces in words', () => {
    const timeline = layoutTimeline({ tracks, overrides, zone: 'Europe/Berlin', firstDate: '2026-10-25', days: 1 });
    const final = timeline.tracks.find((track) => track.kind === 'final')!;
    expect(final.pieces.map((piece) => [piece.user_name, piece.person, piece.override])).toEqual([
      ['Ana Lima', 0, false],
      ['Ben Ode', 1, true],
      ['Ana Lima', 0, false],
      ['Ben Ode', 1, false],
    ]);
    expect(describePiece(final.pieces[1]!, 'Europe/Berlin', 'en-GB')).toBe('Ben Ode, Sun 25 Oct, 12:00 – Sun 25 Oct, 14:00 (override)');
  });

  it('draws in another zone from the same instants (New York: the same override is 07:00–09:00)', () => {
    const timeline = layoutTimeline({ tracks, overrides, zone: 'America/New_York', firstDate: '2026-10-25', days: 1 });
    const final = timeline.days[0]!.tracks.find((track) => track.kind === 'final')!;
    expect(final.segments.map((segment) => segment.text)).toContain('Ben Ode 07:00–09:00, override');
  });
});
