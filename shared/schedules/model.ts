/**
 * On-call schedules (issue 31): the bodies the API takes for a schedule and an override. A schedule's
 * layers are written in local wall-clock time of its IANA zone; `render.ts` turns them into UTC shifts.
 * The semantics the issue leaves open are in docs/decisions.md, "Schedules".
 */
import * as z from '../platform/zod.js';
import { described, Text } from '../platform/api/common.js';
import { isCalendarDate, parseLocalDateTime, parseWallTime, timeZoneName } from './zone.js';

export const MAX_LAYERS = 10;
export const MAX_LAYER_MEMBERS = 50;
export const MAX_RESTRICTIONS = 14;
export const MAX_ROTATION_LENGTH = 365;
export const MAX_OVERRIDE_DAYS = 90;
const DAY_MS = 86_400_000;

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A local time of day, 00:00–23:59. */
export const WallClockTime = described(
  z.string().check(z.refine((value) => parseWallTime(value) !== undefined, { message: 'Must be a local time HH:MM (00:00–23:59)' })),
  { description: 'Local wall-clock time of the schedule\'s zone, HH:MM', example: '09:00' },
);

/** A local date and time without offset, to the minute. */
export const LocalDateTime = described(
  z.string().check(
    z.refine((value) => parseLocalDateTime(value) !== undefined, { message: 'Must be a local date-time YYYY-MM-DDTHH:MM', abort: true }),
    z.refine(
      (value) => {
        const parts = parseLocalDateTime(value);
        return parts !== undefined && isCalendarDate(parts.year, parts.month, parts.day);
      },
      { message: 'Must be a date of the calendar' },
    ),
  ),
  { description: 'Local date and wall-clock time in the schedule\'s zone, without offset', example: '2026-03-02T09:00' },
);

/** A named IANA zone (case-insensitive, stored in the zone's own spelling); fixed offsets are not zones. */
export const TimeZone = described(
  z.string().check(
    z.maxLength(64),
    z.refine((value) => timeZoneName(value) !== undefined, { message: 'Must be an IANA time zone name such as Europe/Berlin' }),
    z.overwrite((value) => timeZoneName(value) ?? value),
  ),
  { description: 'IANA time zone name', example: 'Europe/Berlin' },
);

export const Rotation = z.strictObject({
  type: z.enum(['daily', 'weekly', 'hourly']),
  length: z.int().check(z.minimum(1), z.maximum(MAX_ROTATION_LENGTH)),
});
export type Rotation = z.output<typeof Rotation>;

/**
 * A weekly window: on each of `days`, from `start` to `end` local time; an `end` at or before `start`
 * ends the next day (`22:00`–`06:00` is a night, `00:00`–`00:00` a whole day).
 */
export const Restriction = z.strictObject({
  days: z.array(z.enum(WEEKDAYS)).check(
    z.minLength(1),
    z.maxLength(7),
    z.refine((days) => new Set(days).size === days.length, { message: 'Days must not repeat' }),
  ),
  start: WallClockTime,
  end: WallClockTime,
});
export type Restriction = z.output<typeof Restriction>;

const LayerName = Text({ min: 1, max: 100 });

export const Layer = z.strictObject({
  name: LayerName,
  /** The layer's first handoff: `members[0]` is on call from here. */
  start: LocalDateTime,
  rotation: Rotation,
  /** Daily and weekly rotations: the local time of every handoff, the time of day of `start`. */
  handoff_time: z.optional(WallClockTime),
  /** The rotation's order; a user may appear more than once. */
  members: z.array(z.uuid()).check(z.minLength(1), z.maxLength(MAX_LAYER_MEMBERS)),
  /** Windows outside which the layer covers no one; absent or empty: it covers every instant after `start`. */
  restrictions: z.optional(z.array(Restriction).check(z.maxLength(MAX_RESTRICTIONS))),
}).check(
  z.superRefine((layer, context) => {
    if (layer.rotation.type === 'hourly') {
      if (layer.handoff_time !== undefined) {
        context.addIssue({ code: 'custom', path: ['handoff_time'], message: 'Only daily and weekly rotations take a handoff_time' });
      }
      return;
    }
    if (layer.handoff_time === undefined) {
      context.addIssue({ code: 'custom', path: ['handoff_time'], message: 'Required for daily and weekly rotations' });
      return;
    }
    const start = parseLocalDateTime(layer.start);
    const handoff = parseWallTime(layer.handoff_time);
    if (start && handoff && (start.hour !== handoff.hour || start.minute !== handoff.minute)) {
      context.addIssue({ code: 'custom', path: ['handoff_time'], message: 'Must be the time of day of start (the first handoff)' });
    }
  }),
);
export type Layer = z.output<typeof Layer>;

/** 1–10 layers, later ones winning where they cover a time; names unique (shifts name their layer). */
const Layers = z.array(Layer).check(
  z.minLength(1),
  z.maxLength(MAX_LAYERS),
  z.superRefine((layers, context) => {
    const seen = new Set<string>();
    layers.forEach((layer, index) => {
      if (seen.has(layer.name)) context.addIssue({ code: 'custom', path: [index, 'name'], message: 'Layer names must be unique in a schedule' });
      seen.add(layer.name);
    });
  }),
);

const ScheduleName = Text({ min: 1, max: 100 });
/** Shares the schedule with a team; null: the caller's alone. */
const ScheduleTeam = z.nullable(z.uuid());

export const createScheduleInput = z.strictObject({
  name: ScheduleName,
  time_zone: TimeZone,
  layers: Layers,
  team_id: z._default(ScheduleTeam, null),
});
export type CreateScheduleInput = z.output<typeof createScheduleInput>;

/** Every field optional; an absent body is an empty update ("No updates provided"). */
export const updateScheduleInput = z.prefault(
  described(z.partial(z.strictObject({ name: ScheduleName, time_zone: TimeZone, layers: Layers, team_id: ScheduleTeam })), {
    minProperties: 1,
    id: 'UpdateSchedule',
    example: { name: 'Payments primary' },
  }),
  {},
);
export type UpdateScheduleInput = z.output<typeof updateScheduleInput>;

/** What rendering needs of a schedule. */
export interface ScheduleRules {
  time_zone: string;
  layers: Layer[];
}

/** A UTC instant, kept as `toISOString()` writes it (so stored instants sort as text). */
const UtcInstant = described(
  z.pipe(
    z.iso.datetime(),
    z.transform((value) => new Date(value).toISOString()),
  ),
  { description: 'ISO 8601 UTC', example: '2026-11-21T10:15:30.000Z' },
);

export const createOverrideInput = z.strictObject({
  user_id: z.uuid(),
  start: UtcInstant,
  end: UtcInstant,
}).check(
  z.superRefine((override, context) => {
    const length = Date.parse(override.end) - Date.parse(override.start);
    if (length <= 0) context.addIssue({ code: 'custom', path: ['end'], message: 'Must be after start' });
    else if (length > MAX_OVERRIDE_DAYS * DAY_MS) context.addIssue({ code: 'custom', path: ['end'], message: `An override lasts at most ${MAX_OVERRIDE_DAYS} days` });
  }),
);
export type CreateOverrideInput = z.output<typeof createOverrideInput>;

/** An override as rendering takes it: the one created later wins where two overlap. */
export interface ScheduleOverride {
  id: string;
  user_id: string;
  start: string;
  end: string;
  created_at: string;
}
