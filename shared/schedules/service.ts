/**
 * On-call schedules (issue 31): their routes' domain functions. Shared like escalation policies (owned
 * by a user, or shared with a team: any member reads, OWNER/ADMIN/MEMBER manage, OWNER/ADMIN delete or
 * take out), rights checked at write time inside the transaction. Who is on call is rendered by
 * `render.ts` from the schedule, the overrides in range and the people who may still be on call:
 * accounts, and on a team schedule members of the team at the moment of rendering.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../platform/caller.js';
import { clock } from '../platform/clock.js';
import { accountItem } from '../accounts/model.js';
import type { Person } from '../teams/people.js';
import { attributes, keys, teamItemSk } from '../platform/db/keys.js';
import { batchGet, type Item } from '../platform/db/ops.js';
import { DONE, retryOnConflict } from '../platform/db/retry.js';
import { mergePage, readSource, type PageWindow } from '../platform/db/pagination.js';
import { decodeCursor, pageView } from '../platform/api/pagination.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../platform/errors.js';
import { accessRefusal, accessTo, allows, colleagueChecks, OPERATORS, pageOfScopes, READERS, shareRefusal, teamGuard, writeGuard } from '../teams/access.js';
import { deleteGuard, unmoved, updateAccess, updateRefusal } from '../teams/sharing.js';
import * as repository from './repository.js';
import { auditPut, type AuditSpec, changesOf, sharedResourceAudit } from '../audit/entry.js';
import { onCallAt, renderShifts, ON_CALL_HORIZON_DAYS } from './render.js';
import {
  overrideView,
  peopleOf,
  scheduleItem,
  scheduleView,
  type CreateOverrideInput,
  type CreateScheduleInput,
  type Layer,
  type ListOverridesQuery,
  type ListSchedulesQuery,
  type Schedule,
  type ShiftsQuery,
  type StoredOverride,
  type UpdateScheduleInput,
} from './model.js';

export const scheduleNotFound = () => new NotFoundError('Schedule not found');
const overrideNotFound = () => new NotFoundError('Override not found');
export const SCHEDULE_IN_USE = 'Schedule is a target of escalation policies';

/** A schedule's (or its override's) entry: in its team's log (if any) and its owner's. */
const scheduleAudit = (schedule: Schedule, action: AuditSpec['action'], changes?: AuditSpec['changes'], teamId = schedule.team_id): AuditSpec =>
  sharedResourceAudit('schedule', schedule, action, changes, teamId);
const SCHEDULE_FIELDS = ['name', 'time_zone', 'layers', 'team_id'] as const;
const overrideAudit = (schedule: Schedule, action: 'override.created' | 'override.deleted', overrideId: string, changes?: AuditSpec['changes']): AuditSpec => ({
  ...scheduleAudit(schedule, action, changes),
  resource: { type: 'override', id: overrideId, name: null },
});

const scheduleKeptChanging = (scheduleId: string) => (attempts: number) => `Schedule ${scheduleId} kept changing; gave up after ${attempts} attempts`;
const DAY_MS = 86_400_000;

/** The refusal of a person a schedule names: every place the body names them. */
function personRefusal(outcome: string, layers: readonly Layer[] | undefined, teamId: string | null, field?: string) {
  const userId = outcome.slice('person:'.length);
  const message = teamId ? 'Must be a member of the schedule\'s team' : PERSONAL_SCHEDULE_PERSON;
  if (field) return new ValidationError([{ field, message }]);
  const places = (layers ?? []).flatMap((layer, index) =>
    layer.members.flatMap((member, position) => (member === userId ? [{ field: `layers.${index}.members.${position}`, message }] : [])),
  );
  return new ValidationError(places);
}

const isPerson = (outcome: string): outcome is repository.PersonOutcome => outcome.startsWith('person:');

/** Who a schedule of its owner alone may name (issue 41, 5): an unknown id is told exactly this too. */
export const PERSONAL_SCHEDULE_PERSON = "Must be the schedule's owner or share a team with them";

/**
 * The people checks of a schedule write: on a team schedule, memberships of the team; on one of its owner
 * alone, their accounts and the memberships they share with the owner (refused at once when they share
 * none: `field` names where, else the layers).
 */
async function peopleChecks(schedule: Schedule, people: readonly string[], except: string | undefined, refusal: { layers?: readonly Layer[]; field?: string }) {
  if (schedule.team_id) return repository.schedulePeople(schedule.id, schedule.team_id, people, except);
  const colleagues = await colleagueChecks(schedule.owner_id, people);
  if (colleagues.stranger) throw personRefusal(colleagues.stranger, refusal.layers, null, refusal.field);
  // The owner's own schedules reach their feed through the owner index: no account write for them.
  const checks = repository.schedulePeople(schedule.id, null, people, schedule.owner_id, colleagues.checks);
  if (checks.length > MAX_PERSON_CHECKS) throw new ValidationError([{ field: refusal.field ?? 'layers', message: TOO_MANY_PERSON_CHECKS }]);
  return checks;
}

/** What one write (at most 100 items) leaves for a personal schedule's people beside its own few items (its audit entry and its shift notices' plan among them). */
const MAX_PERSON_CHECKS = 94;
export const TOO_MANY_PERSON_CHECKS =
  "Too many people to check in one write: a schedule of its owner alone checks each other person's account and a team they share with the owner, at most 94 checks; share the schedule with a team instead";

/** A schedule of the caller's own, or shared with a team they belong to (OWNER, ADMIN or MEMBER may share). */
export async function createSchedule(caller: Caller, input: CreateScheduleInput) {
  const now = clock.nowIso();
  const schedule: Schedule = {
    id: randomUUID(),
    name: input.name,
    time_zone: input.time_zone,
    layers: input.layers,
    owner_id: caller.userId,
    team_id: input.team_id,
    created_at: now,
    updated_at: now,
    policy_count: 0,
  };
  const guard = schedule.team_id ? teamGuard(schedule.team_id, caller.userId, OPERATORS) : [];
  const people = await peopleChecks(schedule, peopleOf(schedule.layers), schedule.team_id ? caller.userId : undefined, { layers: schedule.layers });
  const audit = auditPut(caller, scheduleAudit(schedule, 'schedule.created', changesOf(undefined, schedule, SCHEDULE_FIELDS)), now);
  const { outcome, item } = await repository.insertSchedule(schedule, guard, people, audit);
  if (isPerson(outcome)) throw personRefusal(outcome, schedule.layers, schedule.team_id);
  if (outcome !== 'ok') throw shareRefusal(outcome, item);
  return scheduleView(schedule);
}

/** A page of the caller's schedules and those shared with their teams (or with one team), newest first. */
export function listSchedules(caller: Caller, query: ListSchedulesQuery) {
  return pageOfScopes('schedules', caller.userId, query, repository.scheduleSources, (item) => scheduleItem.parse(item) as Schedule, scheduleView);
}

/** The schedule, if the caller owns it or belongs to the team it is shared with. */
async function visibleSchedule(caller: Caller, scheduleId: string) {
  const schedule = await repository.getSchedule(scheduleId);
  if (!schedule || !allows(await accessTo(caller.userId, schedule), READERS)) throw scheduleNotFound();
  return schedule;
}

export async function getSchedule(caller: Caller, scheduleId: string) {
  return scheduleView(await visibleSchedule(caller, scheduleId));
}

/**
 * Renames the schedule, changes its zone or layers, or moves it between teams. The owner may do
 * anything; through its team, OWNER, ADMIN and MEMBER may change it, OWNER and ADMIN take it out. Its
 * people are checked against the scope it ends in, in the same transaction. A schedule that a policy
 * targets does not move (409, naming the policies).
 */
export async function updateSchedule(caller: Caller, scheduleId: string, changes: UpdateScheduleInput) {
  if (Object.values(changes).every((value) => value === undefined)) throw new BadRequestError('No updates provided');
  return retryOnConflict(async () => {
    const current = await repository.getSchedule(scheduleId);
    if (!current) throw scheduleNotFound();
    const access = updateAccess(caller.userId, current, changes.team_id, scheduleNotFound, { ownerThroughTeam: true });
    const { from, to, moving } = access;
    const next: Schedule = {
      ...current,
      name: changes.name ?? current.name,
      time_zone: changes.time_zone ?? current.time_zone,
      layers: changes.layers ?? current.layers,
      team_id: access.teamId,
      updated_at: clock.nowIso(),
    };
    // The caller's membership of the team the schedule ends in is already checked by a guard.
    const guarded = (to.length > 0 || (from.length > 0 && !moving)) && next.team_id ? caller.userId : undefined;
    const people =
      changes.layers || moving ? await peopleChecks(next, peopleOf(next.layers), guarded, changes.layers ? { layers: changes.layers } : { field: 'team_id' }) : [];
    const audit = auditPut(caller, scheduleAudit(current, 'schedule.updated', changesOf(current, next, SCHEDULE_FIELDS), current.team_id ?? next.team_id), next.updated_at);
    const { outcome, item } = await repository.updateSchedule(current, next, { from, to }, people, audit);
    if (outcome === 'ok') return scheduleView(next);
    if (isPerson(outcome)) throw personRefusal(outcome, changes.layers, next.team_id, changes.layers ? undefined : 'team_id');
    const refusal = updateRefusal(outcome, item, access, scheduleNotFound);
    if (refusal) throw refusal;
    if (unmoved(item, current) && moving && Number(item.policy_count ?? 0) > 0) throw await inUse(scheduleId);
    return undefined;
  }, scheduleKeptChanging(scheduleId));
}

/** `409`, naming the policies that target the schedule. */
async function inUse(scheduleId: string) {
  const policies = await repository.policiesTargeting(scheduleId);
  return new ConflictError(
    SCHEDULE_IN_USE,
    policies.map((policy) => ({ field: 'escalation_policy', message: `${policy.name} (${policy.id})` })),
  );
}

/** Deletes a schedule no policy targets: its owner, or an OWNER or ADMIN of the team it is shared with; then its overrides. */
export async function deleteSchedule(caller: Caller, scheduleId: string) {
  await retryOnConflict(async () => {
    const current = await repository.getSchedule(scheduleId);
    if (!current) throw scheduleNotFound();
    const audit = auditPut(caller, scheduleAudit(current, 'schedule.deleted'));
    const { outcome, item } = await repository.deleteSchedule(current, deleteGuard(caller.userId, current, scheduleNotFound).guard, audit);
    if (outcome === 'ok') {
      await repository.purgeSchedule(scheduleId);
      return DONE;
    }
    if (outcome !== 'refused') throw accessRefusal(outcome, item, scheduleNotFound);
    if (unmoved(item, current) && Number(item.policy_count ?? 0) > 0) throw await inUse(scheduleId);
    return undefined; // gone or moved meanwhile: read again
  }, scheduleKeptChanging(scheduleId));
}

// ---------------------------------------------------------------------------------------------
// Overrides

/** Puts a person on call over every layer for a span (the schedule's managers; the person may be on call in it). */
export async function createOverride(caller: Caller, scheduleId: string, input: CreateOverrideInput) {
  return retryOnConflict(async () => {
    const schedule = await repository.getSchedule(scheduleId);
    const guard = writeGuard(caller.userId, schedule, OPERATORS, scheduleNotFound);
    const override: StoredOverride = {
      id: randomUUID(),
      schedule_id: scheduleId,
      user_id: input.user_id,
      start: input.start,
      end: input.end,
      created_by: caller.userId,
      created_at: clock.nowIso(),
    };
    const person = await peopleChecks(schedule!, [input.user_id], guard.length ? caller.userId : undefined, { field: 'user_id' });
    const audit = auditPut(
      caller,
      overrideAudit(schedule!, 'override.created', override.id, changesOf(undefined, override, ['user_id', 'start', 'end'])),
      override.created_at,
    );
    const { outcome, item } = await repository.insertOverride(schedule!, override, guard, person, audit);
    if (outcome === 'ok') return overrideView(override);
    if (isPerson(outcome)) throw personRefusal(outcome, undefined, schedule!.team_id, 'user_id');
    if (outcome !== 'schedule_changed') throw accessRefusal(outcome, item, scheduleNotFound);
    return undefined;
  }, scheduleKeptChanging(scheduleId));
}

/** A page of the overrides that overlap `[from, to)` (`from` defaults to now), by start. */
export async function listOverrides(caller: Caller, scheduleId: string, query: ListOverridesQuery) {
  await visibleSchedule(caller, scheduleId);
  const { limit, cursor, ...filters } = query;
  const from = query.from ?? clock.nowIso();
  const binding = { list: 'schedule-overrides', callerId: caller.userId, filters: { schedule: scheduleId, ...filters } };
  const window: PageWindow = { limit, order: 'asc', after: decodeCursor(cursor, binding), from: repository.earliestOverlappingStart(from), to: query.to };
  const source = repository.overrideSource(scheduleId, from, query.to);
  const page = mergePage([await readSource(source, window)], window);
  return pageView({ items: page.items, next: page.next }, binding, (item: Item) => overrideView(item as StoredOverride));
}

export async function deleteOverride(caller: Caller, scheduleId: string, overrideId: string) {
  const [schedule, start] = await Promise.all([repository.getSchedule(scheduleId), repository.overrideStart(scheduleId, overrideId)]);
  const guard = writeGuard(caller.userId, schedule, OPERATORS, scheduleNotFound);
  if (!start) throw overrideNotFound();
  // The entry names the override's start (what its lookup holds); its person is not read for the log.
  const audit = auditPut(caller, overrideAudit(schedule!, 'override.deleted', overrideId, { start: { from: start, to: null } }));
  const { outcome, item } = await repository.deleteOverride(schedule!, overrideId, start, guard, audit);
  if (outcome === 'gone') throw overrideNotFound();
  if (outcome !== 'ok') throw accessRefusal(outcome, item, scheduleNotFound);
}

// ---------------------------------------------------------------------------------------------
// Who is on call


/**
 * The people of a schedule as rendering sees them: accounts, and on a team schedule members of the team now,
 * and former members with the instant they were removed (`left`: on call before it, never from it on). One
 * BatchGetItem (none for nobody). A person with no account, or never recorded as removed, is left out.
 */
async function renderingPeople(userIds: string[], teamId: string | null): Promise<{ people: Map<string, Person>; left: Record<string, string> }> {
  const people = new Map<string, Person>();
  const left: Record<string, string> = {};
  if (userIds.length === 0) return { people, left };
  const found = await batchGet(
    userIds.flatMap((userId) => [keys.account(userId), ...(teamId ? [keys.teamMembership(teamId, userId), keys.teamFormerMember(teamId, userId)] : [])]),
  );
  const sortKey = (item: Item) => String(item[attributes.sk]);
  const members = new Set(found.filter((item) => sortKey(item).startsWith(teamItemSk.membershipPrefix)).map((item) => String(item.user_id)));
  const removed = new Map(found.filter((item) => sortKey(item).startsWith(teamItemSk.formerMemberPrefix)).map((item) => [String(item.user_id), String(item.removed_at)]));
  for (const item of found.filter((entry) => sortKey(entry) === keys.account(String(entry.id))[attributes.sk])) {
    const account = accountItem.parse(item);
    const leftAt = removed.get(account.id);
    if (teamId && !members.has(account.id)) {
      if (!leftAt) continue;
      left[account.id] = leftAt;
    }
    people.set(account.id, { name: account.name, email: account.email });
  }
  return { people, left };
}

/**
 * What rendering a schedule over `[from, to)` needs: its rules with only the people who may be on call
 * (accounts; on a team schedule, members of the team now, and former members until they were removed — from
 * then on their turns pass to the next member as if they had never been in the rotation, while the shifts
 * before it stay as they were), the overrides in range of those people, and their names. One Query and one
 * BatchGetItem, in parallel (a second BatchGetItem for people only overrides name).
 */
export async function renderingOf(schedule: Schedule, from: string, to: string) {
  const layerPeople = peopleOf(schedule.layers);
  const [stored, found] = await Promise.all([repository.overridesIn(schedule.id, from, to), renderingPeople(layerPeople, schedule.team_id)]);
  const { people, left } = found;
  const others = [...new Set(stored.map((override) => override.user_id))].filter((userId) => !layerPeople.includes(userId));
  const more = await renderingPeople(others, schedule.team_id);
  for (const [userId, person] of more.people) people.set(userId, person);
  Object.assign(left, more.left);
  const layers = schedule.layers
    .map((layer) => ({ ...layer, members: layer.members.filter((userId) => people.has(userId)) }))
    .filter((layer) => layer.members.length > 0);
  const overrides = stored.filter((override) => people.has(override.user_id));
  return { rules: { time_zone: schedule.time_zone, layers, ...(Object.keys(left).length ? { left } : {}) }, overrides, people };
}

/** `renderingOf` a schedule the caller may see, the access check read alongside (`404` otherwise). */
async function visibleRendering(caller: Caller, scheduleId: string, from: string, to: string) {
  const schedule = await repository.getSchedule(scheduleId);
  if (!schedule) throw scheduleNotFound();
  const [access, rendering] = await Promise.all([accessTo(caller.userId, schedule), renderingOf(schedule, from, to)]);
  if (!allows(access, READERS)) throw scheduleNotFound();
  return { ...rendering, schedule };
}

/** Who is on call at `at` (default now): at most one person, with the bounds of their shift. */
export async function onCall(caller: Caller, scheduleId: string, at?: string) {
  const instant = at ?? clock.nowIso();
  const horizon = ON_CALL_HORIZON_DAYS * DAY_MS;
  const ms = Date.parse(instant);
  const { rules, overrides, people } = await visibleRendering(caller, scheduleId, new Date(ms - horizon - 1).toISOString(), new Date(ms + horizon + 2).toISOString());
  return onCallAt(rules, overrides, instant).map((entry) => ({
    user_id: entry.user_id,
    user_name: people.get(entry.user_id)!.name,
    email: people.get(entry.user_id)!.email,
    layer: entry.layer,
    from: entry.from,
    until: entry.until,
  }));
}

/** The final shifts over `[from, to)` (at most 90 days). */
export async function shifts(caller: Caller, scheduleId: string, range: ShiftsQuery) {
  const { rules, overrides, people, schedule } = await visibleRendering(caller, scheduleId, range.from, range.to);
  const layer = range.layer;
  if (layer !== undefined && !schedule.layers.some((each) => each.name === layer)) throw new ValidationError([{ field: 'layer', message: 'No layer of that name in the schedule' }]);
  const rendered =
    layer === undefined
      ? renderShifts(rules, overrides, range.from, range.to)
      : renderShifts({ ...rules, layers: rules.layers.filter((each) => each.name === layer) }, [], range.from, range.to);
  return rendered.map((shift) => ({
    user_id: shift.user_id,
    user_name: people.get(shift.user_id)!.name,
    start: shift.start,
    end: shift.end,
    source: shift.source,
    ...(shift.layer !== undefined ? { layer: shift.layer } : {}),
  }));
}
