/**
 * Shift notices (issue 45 §3), the schedule's side: when each schedule's next shift starts, and which
 * shifts started since its notices were last decided. The sending is `../notifications/shift-notices.ts`'s.
 *
 * One item per schedule, in its collection (`SCHEDULE#<id>` / `SHIFTNOTICES`):
 * - `cursor`: the instant up to which notices are decided. A sweep sends a notice for each shift that
 *   starts after it and at or before now (and still runs), then moves it to now; so a shift that had
 *   already started when a change moved it (its start at or before the cursor) gets none.
 * - `hb_due_pk` / `hb_deadline`: the table's due-by-time index (`heartbeat-due`, shared with the
 *   heartbeats, under partitions of its own: `SHIFTSTART#<first hex digit of the schedule id>`), at the
 *   next shift's start in epoch seconds (rounded up: never before it). The sweep Queries only what is due.
 * - `version`: every write bumps it; a sweep's advance is conditioned on the one it read, so a change
 *   made meanwhile (which set the item due at once) is re-planned by the next run, never overwritten.
 *
 * Every write of a schedule's rules (the schedule, its overrides) carries `replanWrite` in its
 * transaction: due at once, so the next run (within a minute) plans the schedule anew. Which shift is
 * next is a rendering of the rules (`render.ts`), in UTC instants: a DST change moves nothing here.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { keys } from '../platform/db/keys.js';
import { conditionFailure, type TransactItem } from '../platform/db/ops.js';
import type { ScheduleOverride, ScheduleRules } from './model.js';
import { renderShifts, type Shift } from './render.js';
import { daysBetween, localMomentAt } from './zone.js';

/** The due index the heartbeats' sweep also reads (its partitions are `HEARTBEAT#n`, these `SHIFTSTART#n`). */
export const DUE_INDEX = 'heartbeat-due';
export const SHIFT_NOTICE_SHARDS = '0123456789abcdef';
const shardOf = (scheduleId: string) => `SHIFTSTART#${scheduleId[0]!.toLowerCase()}`;
export const shardPartition = (shard: string) => `SHIFTSTART#${shard}`;

const DAY_MS = 86_400_000;
/** How far ahead a sweep renders: the next start and the ends of the shifts it tells. */
export const NOTICE_LOOKAHEAD_DAYS = 30;
/** A sweep that has not run for longer (an outage) catches up this far back, no further. */
export const NOTICE_CATCH_UP_MS = DAY_MS;

const epochSecondsUp = (ms: number) => Math.ceil(ms / 1000);

/**
 * The transaction action a write of a schedule's rules carries: the schedule's notices are due for
 * planning at once. The cursor of a schedule that has none yet (a new one, or one from before notices)
 * starts at `now`: no shift that started before is told.
 */
export function replanWrite(scheduleId: string, now: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.scheduleShiftNotices(scheduleId),
      UpdateExpression:
        'SET #type = :type, schedule_id = :schedule, hb_due_pk = :shard, hb_deadline = :due, #cursor = if_not_exists(#cursor, :now), #version = if_not_exists(#version, :zero) + :one',
      ExpressionAttributeNames: { '#type': 'type', '#cursor': 'cursor', '#version': 'version' },
      ExpressionAttributeValues: {
        ':type': 'shift_notices',
        ':schedule': scheduleId,
        ':shard': shardOf(scheduleId),
        ':due': Math.floor(Date.parse(now) / 1000),
        ':now': now,
        ':zero': 0,
        ':one': 1,
      },
    },
  };
}

export interface DueNotices {
  schedule_id: string;
  cursor: string;
  version: number;
}

/** One page of a shard's schedules whose next shift has started (the index's copy: eventually consistent, the advance is conditional). */
export async function dueNotices(shard: string, nowMs: number, start?: Record<string, unknown>) {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: DUE_INDEX,
      KeyConditionExpression: 'hb_due_pk = :shard AND hb_deadline <= :now',
      ExpressionAttributeValues: { ':shard': shardPartition(shard), ':now': Math.floor(nowMs / 1000) },
      ExclusiveStartKey: start,
    }),
  );
  const items: DueNotices[] = (page.Items ?? []).map((item) => ({ schedule_id: String(item.schedule_id), cursor: String(item.cursor), version: Number(item.version ?? 0) }));
  return { items, next: page.LastEvaluatedKey };
}

/**
 * After a sweep told the shifts up to `now`: the cursor moves to `now`, and the item is due at the
 * next start (or, none within the look-ahead, at its end, to look again), on the condition that no
 * write changed the schedule since it was read. `false` when one did (the next run plans it again).
 */
export async function advanceNotices(due: DueNotices, now: string, nextStartMs: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.scheduleShiftNotices(due.schedule_id),
        UpdateExpression: 'SET #cursor = :now, hb_deadline = :due, #version = #version + :one',
        ConditionExpression: '#version = :read',
        ExpressionAttributeNames: { '#cursor': 'cursor', '#version': 'version' },
        ExpressionAttributeValues: { ':now': now, ':due': epochSecondsUp(nextStartMs), ':one': 1, ':read': due.version },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailure(error)) return false;
    throw error;
  }
}

/** The notices of a schedule that is gone (deleted; its collection is being purged): the item goes. */
export async function dropNotices(scheduleId: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.scheduleShiftNotices(scheduleId) }));
}

/** A shift to tell its person of: its start and, within the look-ahead, its end (null beyond it). */
export interface StartedShift {
  user_id: string;
  start: string;
  end: string | null;
  source: Shift['source'];
}

/**
 * What a sweep does for a schedule at `nowMs` with notices decided up to `cursorMs`: the shifts that
 * started in `(cursor, now]` and still run, and when the next one starts (the look-ahead's end when
 * none does). `rules` and `overrides` cover `[cursor, now + look-ahead)` (`renderingOf`).
 */
export function plan(rules: ScheduleRules, overrides: readonly ScheduleOverride[], cursorMs: number, nowMs: number): { started: StartedShift[]; nextStartMs: number } {
  const horizon = nowMs + NOTICE_LOOKAHEAD_DAYS * DAY_MS;
  // Rendered from the cursor: a shift already running then is cut to start at it, and so is not told.
  const shifts = renderShifts(rules, overrides, new Date(cursorMs).toISOString(), new Date(horizon).toISOString());
  const started = shifts
    .filter((shift) => Date.parse(shift.start) > cursorMs && Date.parse(shift.start) <= nowMs && Date.parse(shift.end) > nowMs)
    .map((shift) => ({ user_id: shift.user_id, start: shift.start, end: Date.parse(shift.end) >= horizon ? null : shift.end, source: shift.source }));
  const next = shifts.find((shift) => Date.parse(shift.start) > nowMs);
  return { started, nextStartMs: next ? Date.parse(next.start) : horizon };
}

// ---------------------------------------------------------------------------------------------
// What a notice says

const WEEKDAY_LABELS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
const MONTH_LABELS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const two = (value: number) => String(value).padStart(2, '0');

/**
 * When a shift runs, in the schedule's zone (the zone named, as its people may live elsewhere):
 * `from Mon 09:00 until Mon 09:00 next week (Europe/Berlin)`. The end is told by what sets it apart
 * from the start: the same day `until 17:00`; within six days `until Tue 09:00`; seven days on
 * `until Mon 09:00 next week`; further `until Tue 14 Apr 09:00`; beyond the look-ahead `with no
 * handoff in the next 30 days`.
 */
export function shiftWhen(zone: string, startMs: number, endMs: number | null): string {
  const start = localMomentAt(startMs, zone);
  const time = (moment: { hour: number; minute: number }) => `${two(moment.hour)}:${two(moment.minute)}`;
  const from = `from ${WEEKDAY_LABELS[start.weekday - 1]} ${time(start)}`;
  if (endMs === null) return `${from} (${zone}), with no handoff in the next ${NOTICE_LOOKAHEAD_DAYS} days`;
  const end = localMomentAt(endMs, zone);
  const days = daysBetween(start.date, end.date);
  const day = WEEKDAY_LABELS[end.weekday - 1];
  const until =
    days === 0
      ? time(end)
      : days < 7
        ? `${day} ${time(end)}`
        : days === 7
          ? `${day} ${time(end)} next week`
          : `${day} ${end.date.day} ${MONTH_LABELS[end.date.month - 1]} ${time(end)}`;
  return `${from} until ${until} (${zone})`;
}
