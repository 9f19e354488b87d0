/**
 * Local calendar and wall-clock time in an IANA time zone, through temporal-polyfill's tree-shakeable
 * function API (about 24 KB of a minified bundle with this module; the Temporal classes would be 56 KB, Luxon 71 KB). This is the
 * only module that imports it, and only `shared/schedules/` imports this one, so no other function's
 * bundle carries it. Nothing here does offset arithmetic of its own: every conversion between an instant
 * and a local date or time is the library's.
 *
 * The rules (docs/decisions.md, "Schedules"): a local time that does not exist (a spring-forward gap)
 * happens at the first valid instant after it, the moment the clocks jump; one that exists twice (a
 * fall-back overlap) happens at its first occurrence.
 */
import * as Instant from 'temporal-polyfill/fns/Instant';
import * as PlainDate from 'temporal-polyfill/fns/PlainDate';
import * as PlainDateTime from 'temporal-polyfill/fns/PlainDateTime';
import * as ZonedDateTime from 'temporal-polyfill/fns/ZonedDateTime';

const WALL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** `YYYY-MM-DDTHH:MM`, optionally with seconds and a fraction (`:SS`, `:SS.sss`), as `Temporal.PlainDateTime` and most clients write it. */
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{1,9}))?)?$/;

export interface LocalDateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** True when the text had seconds or a fraction other than zero (`09:00:30`, `09:00:00.5`). */
  pastTheMinute: boolean;
}

/** `HH:MM` as numbers; undefined when it is not one. */
export function parseWallTime(value: string): WallTime | undefined {
  const match = WALL_TIME.exec(value);
  return match ? { hour: Number(match[1]), minute: Number(match[2]) } : undefined;
}

/**
 * `YYYY-MM-DDTHH:MM` (or with `:SS`, `:SS.sss`) as numbers (the date not checked against the calendar);
 * undefined when it is not one.
 */
export function parseLocalDateTime(value: string): LocalDateTimeParts | undefined {
  const match = LOCAL_DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [number, number, number, number, number];
  const pastTheMinute = /[1-9]/.test(`${match[6] ?? ''}${match[7] ?? ''}`);
  return { year, month, day, hour, minute, pastTheMinute };
}

/** The minute form `YYYY-MM-DDTHH:MM` of a local date-time (seconds and a fraction of zero dropped), as stored. */
export const localDateTimeMinute = (value: string): string => value.slice(0, 16);

/** A day of the local calendar (ISO). */
export type LocalDate = PlainDate.Record;

/** A time of day, as the schedule writes it (`HH:MM`). */
export interface WallTime {
  hour: number;
  minute: number;
}

/**
 * The zone's own spelling of a named IANA time zone (matched case-insensitively, as IANA names are), or
 * undefined when the name is unknown or is a fixed offset such as `+05:30`, which follows no
 * daylight-saving rules and is no place.
 */
export function timeZoneName(name: string): string | undefined {
  if (!/^[A-Za-z]/.test(name)) return undefined;
  try {
    return Instant.toZonedDateTimeISO(Instant.fromEpochMilliseconds(0), name).timeZoneId;
  } catch {
    return undefined;
  }
}

/** A valid calendar date (`2026-02-30` is not one). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  try {
    PlainDate.create(year, month, day);
    return true;
  } catch {
    return false;
  }
}

export function localDate(year: number, month: number, day: number): LocalDate {
  return PlainDate.create(year, month, day);
}

/** The local date at an instant (epoch milliseconds). */
export function localDateAt(epochMs: number, zone: string): LocalDate {
  return ZonedDateTime.toPlainDate(Instant.toZonedDateTimeISO(Instant.fromEpochMilliseconds(epochMs), zone));
}

export function addDays(date: LocalDate, days: number): LocalDate {
  return PlainDate.addDays(date, days);
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier), counted on the calendar. */
export function daysBetween(from: LocalDate, to: LocalDate): number {
  return PlainDate.diffDays(from, to);
}

/** ISO day of the week: 1 Monday … 7 Sunday. */
export function weekday(date: LocalDate): number {
  return PlainDate.dayOfWeek(date);
}

/**
 * The instant (epoch milliseconds) of a local date and wall-clock time in a zone: the first occurrence of
 * a time that exists twice, the first valid instant after a time that does not exist.
 */
export function instantOf(date: LocalDate, time: WallTime, zone: string): number {
  const wall = PlainDateTime.create(date.year, date.month, date.day, time.hour, time.minute);
  const earlier = PlainDateTime.toZonedDateTime(wall, zone, { disambiguation: 'earlier' });
  // Outside a gap, 'earlier' is the time itself (its first occurrence when there are two).
  if (PlainDateTime.equals(ZonedDateTime.toPlainDateTime(earlier), wall)) return earlier.epochMilliseconds;
  // In a gap, 'earlier' is the time moved back by the gap's length, before the jump; the jump itself is
  // the first valid instant after the time.
  const jump = ZonedDateTime.getTimeZoneTransition(earlier, 'next');
  if (!jump) throw new Error(`No transition after a skipped local time in ${zone}`);
  return jump.epochMilliseconds;
}

/** A local date and wall-clock time (to the minute) at an instant, with its ISO weekday (1 Monday … 7 Sunday). */
export interface LocalMoment {
  date: LocalDate;
  weekday: number;
  hour: number;
  minute: number;
}

/** The local date and wall-clock time at an instant (epoch milliseconds) in a zone: the library's conversion. */
export function localMomentAt(epochMs: number, zone: string): LocalMoment {
  const wall = ZonedDateTime.toPlainDateTime(Instant.toZonedDateTimeISO(Instant.fromEpochMilliseconds(epochMs), zone));
  const date = PlainDateTime.toPlainDate(wall);
  return { date, weekday: PlainDate.dayOfWeek(date), hour: wall.hour, minute: wall.minute };
}

/** The hour of the day (0–23) on the zone's wall clock at an instant (the library's conversion, never ours). */
export const localHour = (epochMs: number, zone: string): number => localMomentAt(epochMs, zone).hour;
