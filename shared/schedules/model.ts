/**
 * On-call schedules (issue 31): the bodies the API takes for a schedule and an override. A schedule's
 * layers are written in local wall-clock time of its IANA zone; `render.ts` turns them into UTC shifts.
 * The semantics the issue leaves open are in docs/decisions.md, "Schedules".
 */
import * as z from '../platform/zod.js';
import { described, Id, Text, Timestamp } from '../platform/api/common.js';
import { pageParams } from '../platform/api/pagination.js';
import { isCalendarDate, localDateTimeMinute, parseLocalDateTime, parseWallTime, timeZoneName } from './zone.js';

export const MAX_LAYERS = 10;
export const MAX_LAYER_MEMBERS = 50;
export const MAX_RESTRICTIONS = 14;
export const MAX_ROTATION_LENGTH = 365;
export const MAX_OVERRIDE_DAYS = 90;
/** Distinct people over a schedule's layers: each is checked (an account; a member of the schedule's team) in the write's transaction. */
export const MAX_SCHEDULE_PEOPLE = 50;
/** The longest range `/shifts` renders. */
export const MAX_RANGE_DAYS = 90;
const DAY_MS = 86_400_000;

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A local time of day, 00:00–23:59. */
export const WallClockTime = described(
  z.string().check(z.refine((value) => parseWallTime(value) !== undefined, { message: 'Must be a local time HH:MM (00:00–23:59)' })),
  { description: 'Local wall-clock time of the schedule\'s zone, HH:MM', example: '09:00' },
);

/**
 * A local date and time without offset, to the minute: `YYYY-MM-DDTHH:MM`, or with seconds of zero
 * (`:00`, `:00.000`, as `Temporal.PlainDateTime` and most clients write it), stored and answered as
 * `YYYY-MM-DDTHH:MM`; other seconds are refused, not cut (a shift starts on a minute).
 */
export const LocalDateTime = described(
  z.string().check(
    z.refine((value) => parseLocalDateTime(value) !== undefined, { message: 'Must be a local date-time YYYY-MM-DDTHH:MM', abort: true }),
    z.refine((value) => parseLocalDateTime(value)?.pastTheMinute === false, { message: 'Must be on a whole minute (seconds 00)', abort: true }),
    z.refine(
      (value) => {
        const parts = parseLocalDateTime(value);
        return parts !== undefined && isCalendarDate(parts.year, parts.month, parts.day);
      },
      { message: 'Must be a date of the calendar' },
    ),
    z.overwrite(localDateTimeMinute),
  ),
  {
    description: "Local date and wall-clock time in the schedule's zone, without offset: YYYY-MM-DDTHH:MM, or YYYY-MM-DDTHH:MM:SS with seconds 00; answered as YYYY-MM-DDTHH:MM",
    example: '2026-03-02T09:00',
  },
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

const LayerName = Text({ min: 1, max: 100, name: true });

export const Layer = z.strictObject({
  name: LayerName,
  /** When the layer begins: `members[0]` is on call from here to the first handoff after it. */
  start: LocalDateTime,
  rotation: Rotation,
  /** Daily and weekly rotations: the local time of every handoff, on the dates `start`'s date + k × the rotation's days. */
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
    if (peopleOf(layers).length > MAX_SCHEDULE_PEOPLE) {
      context.addIssue({ code: 'custom', path: [], message: `A schedule names at most ${MAX_SCHEDULE_PEOPLE} different people` });
    }
  }),
);

/** The distinct people a schedule's layers name, in order of first mention. */
export const peopleOf = (layers: readonly { members: readonly string[] }[]) => [...new Set(layers.flatMap((layer) => layer.members))];

const ScheduleName = Text({ min: 1, max: 100, name: true });
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
  /**
   * People who may be on call only before an instant (ISO 8601; removed from the schedule's team then): their
   * turns and overrides count before it, and from it on the rotations go on as if they had never been in them.
   */
  left?: Record<string, string>;
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

// ---------------------------------------------------------------------------------------------
// Stored items and response bodies

export const scheduleItem = z.object({
  id: z.string(),
  name: z.string(),
  time_zone: z.string(),
  layers: z.array(z.any()),
  owner_id: z.string(),
  /** The team the schedule is shared with; stored absent when it is its owner's alone. */
  team_id: z.pipe(
    z.nullish(z.string()),
    z.transform((value) => value ?? null),
  ),
  created_at: z.string(),
  updated_at: z.string(),
  /** How many escalation policies target the schedule; deletion requires 0. */
  policy_count: z._default(z.number(), 0),
});
export type Schedule = Omit<z.output<typeof scheduleItem>, 'layers'> & { layers: Layer[] };

export const ScheduleBody = described(
  z.strictObject({
    id: Id,
    name: z.string(),
    time_zone: TimeZone,
    layers: z.array(described(Layer, { id: 'ScheduleLayer' })),
    owner_id: Id,
    team_id: described(z.nullable(Id), { description: 'The team the schedule is shared with; null when it is its owner\'s alone' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  { id: 'Schedule' },
);

export const scheduleView = (schedule: Schedule): z.output<typeof ScheduleBody> => ({
  id: schedule.id,
  name: schedule.name,
  time_zone: schedule.time_zone,
  layers: schedule.layers,
  owner_id: schedule.owner_id,
  team_id: schedule.team_id,
  created_at: schedule.created_at,
  updated_at: schedule.updated_at,
});

export const listSchedulesQuery = z.object({ team_id: z.optional(z.uuid()), ...pageParams });
export type ListSchedulesQuery = z.output<typeof listSchedulesQuery>;

export const scheduleOverrideItem = z.object({
  id: z.string(),
  schedule_id: z.string(),
  user_id: z.string(),
  start: z.string(),
  end: z.string(),
  created_by: z.string(),
  created_at: z.string(),
});
export type StoredOverride = z.output<typeof scheduleOverrideItem>;

export const OverrideBody = described(
  z.strictObject({ id: Id, user_id: Id, start: Timestamp, end: Timestamp, created_by: Id, created_at: Timestamp }),
  { id: 'ScheduleOverride' },
);

export const overrideView = (override: StoredOverride): z.output<typeof OverrideBody> => ({
  id: override.id,
  user_id: override.user_id,
  start: override.start,
  end: override.end,
  created_by: override.created_by,
  created_at: override.created_at,
});

/** `from` (default: now) and `to` (optional): the overrides that overlap `[from, to)`, by start. */
export const listOverridesQuery = z.object({ from: z.optional(UtcInstant), to: z.optional(UtcInstant), ...pageParams });
export type ListOverridesQuery = z.output<typeof listOverridesQuery>;

export const overrideParams = z.strictObject({ id: z.uuid(), overrideId: z.uuid() });

export const onCallQuery = z.object({ at: z.optional(UtcInstant) });

export const shiftsQuery = z.object({
  from: UtcInstant,
  to: UtcInstant,
  layer: z.optional(
    described(z.string().check(z.minLength(1), z.maxLength(100)), {
      description: "A layer's name: that layer's own rotation (its restrictions applied), without the other layers or overrides, as a console draws each layer above the final result",
    }),
  ),
}).check(
  z.superRefine((range, context) => {
    const length = Date.parse(range.to) - Date.parse(range.from);
    if (length <= 0) context.addIssue({ code: 'custom', path: ['to'], message: 'Must be after from' });
    else if (length > MAX_RANGE_DAYS * DAY_MS) context.addIssue({ code: 'custom', path: ['to'], message: `A range spans at most ${MAX_RANGE_DAYS} days` });
  }),
);
export type ShiftsQuery = z.output<typeof shiftsQuery>;

export const OnCallBody = described(
  z.strictObject({
    user_id: Id,
    user_name: z.string(),
    email: z.string(),
    layer: described(z.nullable(z.string()), { description: 'The layer the shift comes from; null for an override' }),
    from: described(z.nullable(Timestamp), { description: 'Start of the shift; null when it began more than 90 days earlier' }),
    until: described(z.nullable(Timestamp), { description: 'End of the shift; null when it lasts more than 90 days longer' }),
  }),
  { id: 'OnCall' },
);

export const ShiftBody = described(
  z.strictObject({
    user_id: Id,
    user_name: z.string(),
    start: Timestamp,
    end: Timestamp,
    source: z.enum(['layer', 'override']),
    layer: z.optional(z.string()),
  }),
  { id: 'Shift' },
);
