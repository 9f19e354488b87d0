/**
 * Local dates and times in a named IANA zone, for drawing a schedule. No offset tables of our own: every
 * offset is read from `Intl.DateTimeFormat` (the browser's time-zone data), and dates move on the calendar
 * (`Date.UTC` on year, month and day), never by adding hours to an instant.
 */

const DAY_MS = 86_400_000;
const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(zone: string): Intl.DateTimeFormat {
  let format = partsFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormats.set(zone, format);
  }
  return format;
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock in `zone` at the instant `ms`. */
export function wallClock(ms: number, zone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of partsFormat(zone).formatToParts(new Date(ms))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** How far `zone`'s wall clock is ahead of UTC at the instant `ms` (milliseconds; what Intl says). */
export function offsetAt(ms: number, zone: string): number {
  const wall = wallClock(ms, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The local date (YYYY-MM-DD) in `zone` at the instant `ms`. */
export function localDate(ms: number, zone: string): string {
  const wall = wallClock(ms, zone);
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}`;
}

/** The local date and time (YYYY-MM-DDTHH:MM) in `zone` at the instant `ms`, as a datetime-local input shows it. */
export function localDateTime(ms: number, zone: string): string {
  const wall = wallClock(ms, zone);
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}`;
}

/** The calendar date `days` after `date` (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/;

/**
 * The instant at which `zone`'s clocks show `local` (YYYY-MM-DD or YYYY-MM-DDTHH:MM), as the API reads a
 * layer's start: a time that happens twice (clocks going back) is its first occurrence; one that does not
 * happen (clocks going forward) is shifted forward by the gap (Temporal's "compatible"). The candidate
 * offsets are those Intl reports a day before and after, so no zone rule is written here.
 */
export function instantOf(local: string, zone: string): number {
  const match = LOCAL.exec(local);
  if (!match) throw new RangeError(`Not a local date-time: ${local}`);
  const [, year, month, day, hour = '0', minute = '0'] = match;
  const wall = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute));
  const before = offsetAt(wall - DAY_MS, zone);
  const after = offsetAt(wall + DAY_MS, zone);
  const valid = [wall - before, wall - after].filter((candidate, index) => offsetAt(candidate, zone) === (index === 0 ? before : after));
  if (valid.length === 0) return wall - before;
  return Math.min(...valid);
}

/** Whether `zone` is a time zone this browser knows. */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The IANA zones this browser knows (for a picker), with `current` first if it is missing from the list. */
export function knownZones(current?: string): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf;
  const zones = supported ? supported('timeZone') : [];
  return current && !zones.includes(current) ? [current, ...zones] : zones;
}
