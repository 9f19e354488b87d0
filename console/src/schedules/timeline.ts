/**
 * A schedule's timeline as the console draws it: the shifts of each track (each layer's own rotation and the
 * final result) cut into local days of the drawing's zone, each piece positioned as a share of its day, the
 * pieces of the final result that an override puts there flagged, and the same pieces in words (the drawing's
 * text equivalent). Pure: no DOM, no clock; the zone's days come from `zone.ts` (offsets read from Intl).
 */
import { addDays, instantOf, localDateTime } from './zone.js';

export interface ShiftLike {
  user_id: string;
  user_name: string;
  start: string;
  end: string;
}

export interface OverrideLike {
  user_id: string;
  start: string;
  end: string;
}

export interface TrackInput {
  key: string;
  label: string;
  kind: 'layer' | 'final';
  shifts: ShiftLike[];
}

/** A piece of one person's time on call: whole (in `pieces`) or cut to a day (in a row's segments). */
export interface Piece {
  user_id: string;
  user_name: string;
  start: number;
  end: number;
  /** Put there by an override (final track only). */
  override: boolean;
  /** The person's colour: their order of first appearance, 0–7. */
  person: number;
}

export interface Segment extends Piece {
  /** Where it begins in its day and how much of the day it takes, in percent. */
  left: number;
  width: number;
  /** Local wall-clock bounds within the day: "00:00" where it runs in from the day before, "24:00" to the next. */
  from: string;
  until: string;
  /** Words for it: "Ana Lima 09:00–24:00, override". */
  text: string;
}

export interface DayRow {
  /** The local date, YYYY-MM-DD. */
  date: string;
  start: number;
  end: number;
  tracks: { key: string; label: string; kind: 'layer' | 'final'; segments: Segment[] }[];
}

export interface Timeline {
  zone: string;
  days: DayRow[];
  /** Each track's whole pieces (not cut by days), for the list that says the drawing in words. */
  tracks: { key: string; label: string; kind: 'layer' | 'final'; pieces: Piece[] }[];
}

/**
 * Splits each shift where an override of the same person begins or ends, flagging the parts an override
 * covers: a merged shift (a layer turn that runs into the person's own override) shows which part is the override.
 */
export function flagOverrides(shifts: readonly ShiftLike[], overrides: readonly OverrideLike[]): Omit<Piece, 'person'>[] {
  const pieces: Omit<Piece, 'person'>[] = [];
  for (const shift of shifts) {
    const start = Date.parse(shift.start);
    const end = Date.parse(shift.end);
    const mine = overrides
      .filter((override) => override.user_id === shift.user_id)
      .map((override) => [Math.max(start, Date.parse(override.start)), Math.min(end, Date.parse(override.end))] as const)
      .filter(([from, until]) => from < until);
    const cuts = [...new Set([start, end, ...mine.flat()])].sort((a, b) => a - b);
    let current: Omit<Piece, 'person'> | undefined;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const from = cuts[i]!;
      const until = cuts[i + 1]!;
      const override = mine.some(([a, b]) => a <= from && until <= b);
      if (current && current.override === override) current.end = until;
      else {
        current = { user_id: shift.user_id, user_name: shift.user_name, start: from, end: until, override };
        pieces.push(current);
      }
    }
  }
  return pieces;
}

const hm = (ms: number, zone: string) => localDateTime(ms, zone).slice(11);

/**
 * Lays out `tracks` over `days` local days of `zone` from `firstDate` (YYYY-MM-DD): each day a row from its
 * local midnight to the next (23 or 25 hours across a daylight-saving change), each track's pieces cut to it.
 */
export function layoutTimeline(input: { tracks: readonly TrackInput[]; overrides: readonly OverrideLike[]; zone: string; firstDate: string; days: number }): Timeline {
  const { zone } = input;
  const people = new Map<string, number>();
  const colour = (userId: string) => {
    if (!people.has(userId)) people.set(userId, people.size % 8);
    return people.get(userId)!;
  };
  const tracks = input.tracks.map((track) => ({
    key: track.key,
    label: track.label,
    kind: track.kind,
    pieces: (track.kind === 'final'
      ? flagOverrides(track.shifts, input.overrides)
      : track.shifts.map((shift) => ({ user_id: shift.user_id, user_name: shift.user_name, start: Date.parse(shift.start), end: Date.parse(shift.end), override: false }))
    ).map((piece) => ({ ...piece, person: colour(piece.user_id) })),
  }));
  const days: DayRow[] = [];
  for (let i = 0; i < input.days; i++) {
    const date = addDays(input.firstDate, i);
    const start = instantOf(date, zone);
    const end = instantOf(addDays(date, 1), zone);
    const length = end - start;
    days.push({
      date,
      start,
      end,
      tracks: tracks.map((track) => ({
        key: track.key,
        label: track.label,
        kind: track.kind,
        segments: track.pieces
          .filter((piece) => piece.start < end && piece.end > start)
          .map((piece) => {
            const from = Math.max(piece.start, start);
            const until = Math.min(piece.end, end);
            const fromText = from === start ? '00:00' : hm(from, zone);
            const untilText = until === end ? '24:00' : hm(until, zone);
            return {
              ...piece,
              start: from,
              end: until,
              left: ((from - start) / length) * 100,
              width: ((until - from) / length) * 100,
              from: fromText,
              until: untilText,
              text: `${piece.user_name} ${fromText}–${untilText}${piece.override ? ', override' : ''}`,
            };
          }),
      })),
    });
  }
  return { zone, days, tracks };
}

/** A whole piece in words, in the drawing's zone: "Ana Lima, Mon 2 Nov 09:00 – Mon 9 Nov 09:00 (override)". */
export function describePiece(piece: Pick<Piece, 'user_name' | 'start' | 'end' | 'override'>, zone: string, locale?: string): string {
  const format = new Intl.DateTimeFormat(locale, { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${piece.user_name}, ${format.format(piece.start)} – ${format.format(piece.end)}${piece.override ? ' (override)' : ''}`;
}

/** A day's heading in words: "Mon 2 Nov". */
export function describeDay(date: string, locale?: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' }).format(Date.UTC(year, month - 1, day));
}
