/**
 * On-call schedules in the table (issue 31): a schedule's item collection (`SCHEDULE#<id>`) holds the
 * schedule, its overrides (by start) with their id lookups, and one item per escalation policy that
 * targets it. Shared like monitors and policies: owner index always, team index while shared, a link in
 * the team's collection. Who may be named in a schedule is settled in the write's own transaction: one
 * ConditionCheck per person (an account; on a team schedule, a membership of the team).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../platform/db/client.js';
import { attributes, itemAbsent, itemPresent, keys, ownerIndex, scheduleItemSk, teamIndex } from '../platform/db/keys.js';
import { purgeCollection, queryAll, queryCollection, transactOutcome, updateExpression, type Item, type TransactItem } from '../platform/db/ops.js';
import type { Source } from '../platform/db/pagination.js';
import { returnToOwner, type GuardOutcome } from '../teams/access.js';
import { personChecks, type PersonOutcome } from '../teams/access.js';
export type { PersonOutcome } from '../teams/access.js';
import { clock } from '../platform/clock.js';
import { replanWrite } from './notices.js';
import { MAX_OVERRIDE_DAYS, scheduleItem, scheduleOverrideItem, type Schedule, type StoredOverride } from './model.js';

type Guard = readonly (readonly [GuardOutcome, TransactItem])[];

const DAY_MS = 86_400_000;

const scheduleAttributes = (schedule: Schedule) => ({
  ...keys.schedule(schedule.id),
  ...ownerIndex.schedule(schedule.owner_id, schedule.created_at, schedule.id),
  ...(schedule.team_id ? teamIndex.schedule(schedule.team_id, schedule.created_at, schedule.id) : {}),
  type: 'schedule',
  ...schedule,
  team_id: schedule.team_id ?? undefined,
});

const sharedLink = (teamId: string, scheduleId: string) => ({
  Put: { TableName: tableName(), Item: { ...keys.teamSharedSchedule(teamId, scheduleId), type: 'team_shared_schedule', schedule_id: scheduleId } },
});

/**
 * The people a schedule write names, settled in its transaction. On a team schedule, a check of each one's
 * membership (the team's members read its schedules through the team). On a schedule of its owner alone, an
 * update of each one's account that fails where there is no account and otherwise adds the schedule to the
 * account's `schedule_ids`, so the person's calendar finds the schedules of others that name them.
 */
export function schedulePeople(
  scheduleId: string,
  teamId: string | null,
  people: readonly string[],
  except?: string,
  colleagues: readonly (readonly [PersonOutcome, TransactItem])[] = [],
): (readonly [PersonOutcome, TransactItem])[] {
  if (teamId) return personChecks(teamId, people, except);
  // Of its owner alone, also the checks that each other person still shares a team with the owner (`colleagueChecks`).
  return [...colleagues, ...people
    .filter((userId) => userId !== except)
    .map((userId) => [
      `person:${userId}` as PersonOutcome,
      {
        Update: {
          TableName: tableName(),
          Key: keys.account(userId),
          UpdateExpression: 'ADD schedule_ids :schedule',
          ConditionExpression: itemPresent,
          ExpressionAttributeValues: { ':schedule': new Set([scheduleId]) },
        },
      },
    ] as const)];
}

/** Writes the schedule with its people's checks; shared with a team, with the caller's guard and the team's link. */
export async function insertSchedule(schedule: Schedule, guard: Guard, people: (readonly [PersonOutcome, TransactItem])[], audit: TransactItem) {
  const result = await transactOutcome<GuardOutcome | PersonOutcome | 'conflict'>([
    ...guard,
    ...people,
    ['conflict', { Put: { TableName: tableName(), Item: scheduleAttributes(schedule), ConditionExpression: itemAbsent } }],
    ...(schedule.team_id ? [['conflict', sharedLink(schedule.team_id, schedule.id)] as const] : []),
    ['conflict', audit],
    // Its shift notices (issue 45 §3), planned by the next sweep.
    ['conflict', replanWrite(schedule.id, schedule.created_at)],
  ]);
  if (result.outcome === 'conflict') throw new Error(`Unexpected conflict writing schedule ${schedule.id}`);
  return result as { outcome: 'ok' | GuardOutcome | PersonOutcome; item?: Item };
}

export async function getSchedule(scheduleId: string): Promise<Schedule | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.schedule(scheduleId), ConsistentRead: true }));
  return Item ? (scheduleItem.parse(Item) as Schedule) : undefined;
}

/** Where a list page of schedules is read: the owner's, or a team's, partition of its index. */
export const scheduleSources = {
  owner: (ownerId: string): Source => ({ index: ownerIndex, partition: ownerIndex.partition(ownerId), prefix: ownerIndex.schedulePrefix }),
  team: (teamId: string): Source => ({ index: teamIndex, partition: teamIndex.partition(teamId), prefix: teamIndex.schedulePrefix }),
};

const sameScope = (schedule: Schedule) => ({
  expression: schedule.team_id ? 'team_id = :was_team' : 'attribute_not_exists(team_id)',
  values: schedule.team_id ? { ':was_team': schedule.team_id } : {},
});

/**
 * Changes name, zone, layers and (with `next.team_id`) the team, on the condition that the schedule is
 * still shared as read and, when it moves, no policy targets it; with the caller's guards on the team it
 * is in (`from`) and the one it joins (`to`), the teams' links, and the checks of its people.
 */
export async function updateSchedule(current: Schedule, next: Schedule, guards: { from: Guard; to: Guard }, people: (readonly [PersonOutcome, TransactItem])[], audit: TransactItem) {
  const moving = next.team_id !== current.team_id;
  const scope = sameScope(current);
  const unused = moving ? ' AND (attribute_not_exists(policy_count) OR policy_count = :zero)' : '';
  const teamKeys = next.team_id ? teamIndex.schedule(next.team_id, next.created_at, next.id) : undefined;
  return transactOutcome<GuardOutcome | PersonOutcome | 'from_gone' | 'from_role' | 'refused'>([
    ...guards.from.map(([name, item]) => [name === 'team_gone' ? 'from_gone' : 'from_role', item] as const),
    ...guards.to,
    ...people,
    [
      'refused',
      {
        Update: {
          TableName: tableName(),
          Key: keys.schedule(current.id),
          ...updateExpression({
            set: {
              name: next.name,
              time_zone: next.time_zone,
              layers: next.layers,
              updated_at: next.updated_at,
              ...(moving && teamKeys ? { team_id: next.team_id, ...teamKeys } : {}),
            },
            remove: moving && !teamKeys ? ['team_id', teamIndex.pk, teamIndex.sk] : undefined,
            // `updated_at` as read: the audit entry's `from` values are the schedule as read (a change in between: read again).
            condition: {
              expression: `${itemPresent} AND ${scope.expression}${unused} AND #was_updated_at = :was_updated_at`,
              names: { '#was_updated_at': 'updated_at' },
              values: { ...scope.values, ...(moving ? { ':zero': 0 } : {}), ':was_updated_at': current.updated_at },
            },
          }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    ...(moving && current.team_id ? [['refused', { Delete: { TableName: tableName(), Key: keys.teamSharedSchedule(current.team_id, current.id) } }] as const] : []),
    ...(moving && next.team_id ? [['refused', sharedLink(next.team_id, next.id)] as const] : []),
    ['refused', audit],
    // Its shift notices are planned again by the next sweep (issue 45 §3).
    ['refused', replanWrite(current.id, next.updated_at)],
  ]);
}

/**
 * Deletes the schedule item unless a policy targets it, on the condition that it is still shared as
 * read; through a team, with the guard. A refusal answers the schedule as it was. Its overrides and
 * lookups go after it (`purgeSchedule`): nothing reads them once the schedule is gone.
 */
export async function deleteSchedule(current: Schedule, guard: Guard, audit: TransactItem) {
  const scope = sameScope(current);
  return transactOutcome<GuardOutcome | 'refused'>([
    ...guard,
    [
      'refused',
      {
        Delete: {
          TableName: tableName(),
          Key: keys.schedule(current.id),
          ConditionExpression: `${itemPresent} AND ${scope.expression} AND (attribute_not_exists(policy_count) OR policy_count = :zero)`,
          ExpressionAttributeValues: { ':zero': 0, ...scope.values },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    ...(current.team_id ? [['refused', { Delete: { TableName: tableName(), Key: keys.teamSharedSchedule(current.team_id, current.id) } }] as const] : []),
    ['refused', audit],
  ]);
}

/** Deletes what remains of a deleted schedule's collection (overrides, their lookups). */
export const purgeSchedule = (scheduleId: string) => purgeCollection(keys.schedulePartition(scheduleId), {});

/** The ids of the policies that target the schedule (read after a refused delete, to name them). */
export async function policiesTargeting(scheduleId: string): Promise<{ id: string; name: string }[]> {
  const items = await queryCollection(keys.schedulePartition(scheduleId), ['policy_id', 'policy_name'], scheduleItemSk.targetedByPrefix);
  return items.map((item) => ({ id: String(item.policy_id), name: String(item.policy_name) }));
}

/** Gives a schedule of a deleted team back to its owner (`team_id` null); one moved meanwhile is left alone. */
export const returnScheduleToOwner = (scheduleId: string, teamId: string) => returnToOwner(keys.schedule(scheduleId), teamId);

// ---------------------------------------------------------------------------------------------
// Overrides

/** ConditionCheck: the schedule exists and is still shared as read (its rights are the ones checked). */
const scheduleAsRead = (schedule: Schedule): TransactItem => {
  const scope = sameScope(schedule);
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.schedule(schedule.id),
      ConditionExpression: `${itemPresent} AND ${scope.expression}`,
      ...(schedule.team_id ? { ExpressionAttributeValues: scope.values } : {}),
    },
  };
};

/** Writes an override and its id lookup, with the caller's guard, the check of its person, and that the schedule is as read. */
export function insertOverride(schedule: Schedule, override: StoredOverride, guard: Guard, person: (readonly [PersonOutcome, TransactItem])[], audit: TransactItem) {
  return transactOutcome<GuardOutcome | PersonOutcome | 'schedule_changed'>([
    ...guard,
    ...person,
    ['schedule_changed', scheduleAsRead(schedule)],
    [
      'schedule_changed',
      { Put: { TableName: tableName(), Item: { ...keys.scheduleOverride(schedule.id, override.start, override.id), type: 'schedule_override', ...override }, ConditionExpression: itemAbsent } },
    ],
    [
      'schedule_changed',
      { Put: { TableName: tableName(), Item: { ...keys.scheduleOverrideId(schedule.id, override.id), type: 'schedule_override_id', start: override.start }, ConditionExpression: itemAbsent } },
    ],
    ['schedule_changed', audit],
    ['schedule_changed', replanWrite(schedule.id, override.created_at)],
  ]);
}

/** Where an override is: the start its key carries, from its id lookup; undefined when there is none. */
export async function overrideStart(scheduleId: string, overrideId: string): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.scheduleOverrideId(scheduleId, overrideId), ConsistentRead: true }));
  return typeof Item?.start === 'string' ? Item.start : undefined;
}

/** Deletes an override and its lookup, with the caller's guard and that the schedule is as read. */
export function deleteOverride(schedule: Schedule, overrideId: string, start: string, guard: Guard, audit: TransactItem) {
  return transactOutcome<GuardOutcome | 'gone'>([
    ...guard,
    ['gone', scheduleAsRead(schedule)],
    ['gone', { Delete: { TableName: tableName(), Key: keys.scheduleOverride(schedule.id, start, overrideId), ConditionExpression: itemPresent } }],
    ['gone', { Delete: { TableName: tableName(), Key: keys.scheduleOverrideId(schedule.id, overrideId), ConditionExpression: itemPresent } }],
    ['gone', audit],
    ['gone', replanWrite(schedule.id, clock.nowIso())],
  ]);
}

/**
 * The source of an override list: the schedule's collection by start. An override lasts at most 90
 * days, so those overlapping `[from, …)` start no earlier than 90 days before `from`; the filter keeps
 * those that end after it.
 */
export function overrideSource(scheduleId: string, from: string, to?: string): Source {
  return {
    partition: keys.schedulePartition(scheduleId),
    prefix: scheduleItemSk.overridePrefix,
    filter: to
      ? { expression: '#end > :from AND #start < :to', names: { '#end': 'end', '#start': 'start' }, values: { ':from': from, ':to': to } }
      : { expression: '#end > :from', names: { '#end': 'end' }, values: { ':from': from } },
    consistent: true,
  };
}

/** The sort-key bound below which no override overlapping `[from, …)` starts. */
export const earliestOverlappingStart = (from: string) => new Date(Date.parse(from) - MAX_OVERRIDE_DAYS * DAY_MS).toISOString();

/** Every override overlapping `[from, to)`: one Query (paged by DynamoDB only past 1 MB). */
export async function overridesIn(scheduleId: string, from: string, to: string): Promise<StoredOverride[]> {
  const items = await queryAll({
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
    FilterExpression: '#end > :from',
    ExpressionAttributeNames: { '#pk': attributes.pk, '#sk': attributes.sk, '#end': 'end' },
    ExpressionAttributeValues: {
      ':pk': keys.schedulePartition(scheduleId),
      ':low': `${scheduleItemSk.overridePrefix}${earliestOverlappingStart(from)}`,
      // Starts strictly before `to`: `#` sorts after the instant's own characters end.
      ':high': `${scheduleItemSk.overridePrefix}${to}`,
      ':from': from,
    },
    ConsistentRead: true,
  });
  return items.map((item) => scheduleOverrideItem.parse(item)).filter((override) => override.start < to);
}
