/**
 * On-call schedules over HTTP (issue 31): CRUD with its validation and team rights, overrides, who is
 * on call and the rendered shifts, and a member removed from the team leaving every rotation at once.
 * The rendering itself (DST, restrictions, property tests) is tested in test/unit/schedules-*.test.ts.
 */
import { randomUUID } from 'node:crypto';
import ICAL from 'ical.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freezeClock, resetClock } from '../../shared/platform/clock.js';
import { Api, uniqueEmail } from '../support/api.js';
import { holdCalls } from '../../infra/testing/ddb-calls.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/platform/db/client.js';
import { keys } from '../../shared/platform/db/keys.js';
import { createTeam, join, seedTeam, teamWithRoles, type TeamWithRoles } from '../support/teams.js';
import { TOO_MANY_PERSON_CHECKS } from '../../shared/schedules/service.js';

let api: Api;
let fx: TeamWithRoles;

beforeAll(async () => {
  api = await Api.start();
  fx = await teamWithRoles(api);
});
afterAll(() => api.close());
afterEach(() => resetClock());

/** A weekly rotation in Berlin handing off Mondays 09:00 local, from Monday 2 November 2026. */
const weekly = (members: string[], name = 'Weekly') => ({
  name,
  start: '2026-11-02T09:00',
  rotation: { type: 'weekly', length: 1 },
  handoff_time: '09:00',
  members,
});

async function create(as: keyof TeamWithRoles['users'], body: Record<string, unknown>) {
  return api.request('POST', '/api/schedules', { token: fx.users[as].token, body: { name: 'Primary', time_zone: 'Europe/Berlin', ...body } });
}

describe('schedules', () => {
  it('creates, reads, lists, updates and deletes a schedule of its owner; zones and people are validated', async () => {
    const { OWNER: owner, ADMIN: admin } = fx.users;
    const created = await create('OWNER', { time_zone: 'europe/berlin', layers: [weekly([owner.id, admin.id])] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const schedule = created.body.schedule;
    expect(schedule).toMatchObject({ name: 'Primary', time_zone: 'Europe/Berlin', owner_id: owner.id, team_id: null, layers: [weekly([owner.id, admin.id])] });

    expect((await api.request('GET', `/api/schedules/${schedule.id}`, { token: owner.token })).body.schedule).toEqual(schedule);
    const listed = await api.request('GET', '/api/schedules', { token: owner.token });
    expect(listed.body.schedules.map((item: { id: string }) => item.id)).toContain(schedule.id);
    expect((await api.request('GET', `/api/schedules/${schedule.id}`, { token: admin.token })).status).toBe(404);

    const renamed = await api.request('PUT', `/api/schedules/${schedule.id}`, { token: owner.token, body: { name: 'Payments' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.schedule.name).toBe('Payments');
    expect((await api.request('PUT', `/api/schedules/${schedule.id}`, { token: owner.token, body: {} })).body).toEqual({ error: 'No updates provided' });

    const stranger = randomUUID();
    const refused = await api.request('PUT', `/api/schedules/${schedule.id}`, { token: owner.token, body: { layers: [weekly([owner.id, stranger, stranger])] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'Validation errors',
      details: [
        { field: 'layers.0.members.1', message: "Must be the schedule's owner or share a team with them" },
        { field: 'layers.0.members.2', message: "Must be the schedule's owner or share a team with them" },
      ],
    });
    const badZone = await create('OWNER', { time_zone: '+05:30', layers: [weekly([owner.id])] });
    expect(badZone.body.details).toEqual([{ field: 'time_zone', message: 'Must be an IANA time zone name such as Europe/Berlin' }]);
    const tooMany = await create('OWNER', { layers: Array.from({ length: 11 }, (_, index) => weekly([owner.id], `L${index}`)) });
    expect(tooMany.body.details.map((detail: { field: string }) => detail.field)).toEqual(['layers']);

    expect((await api.request('DELETE', `/api/schedules/${schedule.id}`, { token: owner.token })).body).toEqual({ message: 'Schedule deleted' });
    expect((await api.request('GET', `/api/schedules/${schedule.id}`, { token: owner.token })).body).toEqual({ error: 'Schedule not found' });
  });

  it("takes a layer's start with seconds of zero (`Temporal.PlainDateTime`'s form), stores and answers it to the minute, and refuses other seconds", async () => {
    const { OWNER: owner } = fx.users;
    const created = await create('OWNER', { layers: [{ ...weekly([owner.id]), start: '2026-11-02T09:00:00' }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.schedule.layers[0].start).toBe('2026-11-02T09:00');
    const path = `/api/schedules/${created.body.schedule.id}`;
    expect((await api.request('GET', path, { token: owner.token })).body.schedule.layers[0].start).toBe('2026-11-02T09:00');
    const updated = await api.request('PUT', path, { token: owner.token, body: { layers: [{ ...weekly([owner.id]), start: '2026-11-09T09:00:00.000' }] } });
    expect(updated.body.schedule.layers[0].start).toBe('2026-11-09T09:00');
    const shifts = await api.request('GET', `${path}/shifts?from=2026-11-09T00:00:00Z&to=2026-11-10T00:00:00Z`, { token: owner.token });
    expect(shifts.body.shifts[0].start).toBe('2026-11-09T08:00:00.000Z');
    for (const start of ['2026-11-02T09:00:30', '2026-11-02T09:00:00.5']) {
      expect((await create('OWNER', { layers: [{ ...weekly([owner.id]), start }] })).body).toEqual({
        error: 'Validation errors',
        details: [{ field: 'layers.0.start', message: 'Must be on a whole minute (seconds 00)' }],
      });
    }
    expect((await create('OWNER', { layers: [{ ...weekly([owner.id]), start: '2026-11-02T09:00:0' }] })).body.details).toEqual([
      { field: 'layers.0.start', message: 'Must be a local date-time YYYY-MM-DDTHH:MM' },
    ]);
  });

  it('shares a schedule with a team: any member reads, MEMBER+ manages, OWNER/ADMIN delete; its people are members of the team', async () => {
    const { OWNER: owner, MEMBER: member, VIEWER: viewer, NON_MEMBER: outsider } = fx.users;
    const team_id = fx.team.id;
    expect((await create('VIEWER', { team_id, layers: [weekly([viewer.id])] })).body).toEqual({ error: 'Not authorized' });
    expect((await create('NON_MEMBER', { team_id, layers: [weekly([outsider.id])] })).body).toEqual({ error: 'Not a team member' });
    const foreign = await create('MEMBER', { team_id, layers: [weekly([member.id, outsider.id])] });
    expect(foreign.body).toEqual({ error: 'Validation errors', details: [{ field: 'layers.0.members.1', message: "Must be a member of the schedule's team" }] });

    const created = await create('MEMBER', { team_id, layers: [weekly([member.id, owner.id])] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const path = `/api/schedules/${created.body.schedule.id}`;
    expect((await api.request('GET', path, { token: viewer.token })).status).toBe(200);
    expect((await api.request('GET', `/api/schedules?team_id=${team_id}`, { token: viewer.token })).body.schedules).toHaveLength(1);
    expect((await api.request('GET', path, { token: outsider.token })).body).toEqual({ error: 'Schedule not found' });
    expect((await api.request('PUT', path, { token: viewer.token, body: { name: 'Mine' } })).body).toEqual({ error: 'Not authorized' });
    expect((await api.request('PUT', path, { token: outsider.token, body: { name: 'Mine' } })).body).toEqual({ error: 'Schedule not found' });
    expect((await api.request('PUT', path, { token: owner.token, body: { name: 'Team primary' } })).status).toBe(200);
    expect((await api.request('DELETE', path, { token: viewer.token })).body).toEqual({ error: 'Not authorized' });
    expect((await api.request('DELETE', path, { token: owner.token })).body).toEqual({ message: 'Schedule deleted' });
  });

  it('answers who is on call and the shifts, with overrides winning (the later where two overlap)', async () => {
    const { OWNER: owner, ADMIN: admin, MEMBER: member, VIEWER: viewer } = fx.users;
    const created = await create('OWNER', { team_id: fx.team.id, layers: [weekly([owner.id, admin.id])] });
    const path = `/api/schedules/${created.body.schedule.id}`;
    const onCall = async (at: string) => (await api.request('GET', `${path}/on-call?at=${at}`, { token: viewer.token })).body.on_call;

    // Winter time: 09:00 in Berlin is 08:00Z. Week 2 (from 9 November) is the admin's.
    expect(await onCall('2026-11-10T12:00:00Z')).toEqual([
      { user_id: admin.id, user_name: admin.name, email: admin.email, layer: 'Weekly', from: '2026-11-09T08:00:00.000Z', until: '2026-11-16T08:00:00.000Z' },
    ]);
    expect(await onCall('2026-11-01T12:00:00Z')).toEqual([]);

    const override = async (user_id: string, start: string, end: string) =>
      api.request('POST', `${path}/overrides`, { token: member.token, body: { user_id, start, end } });
    const first = await override(member.id, '2026-11-10T10:00:00Z', '2026-11-10T14:00:00Z');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const second = await override(owner.id, '2026-11-10T12:00:00Z', '2026-11-10T16:00:00Z');
    expect(second.status).toBe(201);
    expect((await override(randomUUID(), '2026-11-10T12:00:00Z', '2026-11-10T16:00:00Z')).body).toEqual({
      error: 'Validation errors',
      details: [{ field: 'user_id', message: "Must be a member of the schedule's team" }],
    });
    expect((await api.request('POST', `${path}/overrides`, { token: viewer.token, body: { user_id: viewer.id, start: '2026-11-10T12:00:00Z', end: '2026-11-10T13:00:00Z' } })).body).toEqual({ error: 'Not authorized' });

    expect(await onCall('2026-11-10T11:00:00Z')).toEqual([
      { user_id: member.id, user_name: member.name, email: member.email, layer: null, from: '2026-11-10T10:00:00.000Z', until: '2026-11-10T12:00:00.000Z' },
    ]);
    const shifts = await api.request('GET', `${path}/shifts?from=2026-11-10T00:00:00Z&to=2026-11-11T00:00:00Z`, { token: viewer.token });
    expect(shifts.body.shifts).toEqual([
      { user_id: admin.id, user_name: admin.name, start: '2026-11-10T00:00:00.000Z', end: '2026-11-10T10:00:00.000Z', source: 'layer', layer: 'Weekly' },
      { user_id: member.id, user_name: member.name, start: '2026-11-10T10:00:00.000Z', end: '2026-11-10T12:00:00.000Z', source: 'override' },
      { user_id: owner.id, user_name: owner.name, start: '2026-11-10T12:00:00.000Z', end: '2026-11-10T16:00:00.000Z', source: 'override' },
      { user_id: admin.id, user_name: admin.name, start: '2026-11-10T16:00:00.000Z', end: '2026-11-11T00:00:00.000Z', source: 'layer', layer: 'Weekly' },
    ]);
    // One layer's own rotation, as the console draws it above the final result: no overrides, no other layer.
    const layerShifts = await api.request('GET', `${path}/shifts?from=2026-11-10T00:00:00Z&to=2026-11-11T00:00:00Z&layer=Weekly`, { token: viewer.token });
    expect(layerShifts.body.shifts).toEqual([
      { user_id: admin.id, user_name: admin.name, start: '2026-11-10T00:00:00.000Z', end: '2026-11-11T00:00:00.000Z', source: 'layer', layer: 'Weekly' },
    ]);
    const noLayer = await api.request('GET', `${path}/shifts?from=2026-11-10T00:00:00Z&to=2026-11-11T00:00:00Z&layer=Nightly`, { token: viewer.token });
    expect([noLayer.status, noLayer.body]).toEqual([400, { error: 'Validation errors', details: [{ field: 'layer', message: 'No layer of that name in the schedule' }] }]);
    const tooLong = await api.request('GET', `${path}/shifts?from=2026-11-10T00:00:00Z&to=2027-02-10T00:00:00Z`, { token: viewer.token });
    expect(tooLong.body.details).toEqual([{ field: 'to', message: 'A range spans at most 90 days' }]);

    const listed = await api.request('GET', `${path}/overrides?from=2026-11-10T14:00:00Z&limit=1`, { token: viewer.token });
    expect(listed.body.overrides).toEqual([second.body.override]);
    const all = await api.request('GET', `${path}/overrides?from=2026-11-01T00:00:00Z&limit=1`, { token: viewer.token });
    expect(all.body.overrides).toEqual([first.body.override]);
    const next = await api.request('GET', `${path}/overrides?from=2026-11-01T00:00:00Z&limit=1&cursor=${all.body.next_cursor}`, { token: viewer.token });
    expect(next.body.overrides).toEqual([second.body.override]);

    const removed = await api.request('DELETE', `${path}/overrides/${first.body.override.id}`, { token: member.token });
    expect(removed.body).toEqual({ message: 'Override removed' });
    expect((await api.request('DELETE', `${path}/overrides/${first.body.override.id}`, { token: member.token })).body).toEqual({ error: 'Override not found' });
    expect((await onCall('2026-11-10T11:00:00Z'))[0].user_id).toBe(admin.id);
  });

  it('/on-call agrees with /shifts at a handoff, just before it, inside an override, inside a merged shift and where nobody is on call', async () => {
    const { OWNER: owner, ADMIN: admin, MEMBER: member, VIEWER: viewer } = fx.users;
    const created = await create('OWNER', { team_id: fx.team.id, layers: [weekly([owner.id, admin.id])] });
    const path = `/api/schedules/${created.body.schedule.id}`;
    const override = async (user_id: string, start: string, end: string) =>
      expect((await api.request('POST', `${path}/overrides`, { token: owner.token, body: { user_id, start, end } })).status).toBe(201);
    await override(member.id, '2026-11-10T10:00:00Z', '2026-11-10T14:00:00Z');
    // The owner's override runs into the owner's own turn (from 16 November 08:00Z): one shift, shown as the override.
    await override(owner.id, '2026-11-16T06:00:00Z', '2026-11-16T08:00:00Z');
    const from = '2026-10-30T00:00:00.000Z';
    const to = '2026-11-30T00:00:00.000Z';
    const shifts = (await api.request('GET', `${path}/shifts?from=${from}&to=${to}`, { token: viewer.token })).body.shifts as {
      user_id: string;
      start: string;
      end: string;
      source: string;
      layer?: string;
    }[];
    expect(shifts.find((shift) => shift.start === '2026-11-16T06:00:00.000Z')).toMatchObject({ user_id: owner.id, end: '2026-11-23T08:00:00.000Z', source: 'override' });
    const people = new Map([owner, admin, member].map((user) => [user.id, user]));
    for (const at of ['2026-11-09T08:00:00.000Z', '2026-11-09T07:59:59.999Z', '2026-11-10T11:00:00.000Z', '2026-11-10T14:00:00.000Z', '2026-11-16T07:00:00.000Z', '2026-11-18T00:00:00.000Z', '2026-11-01T00:00:00.000Z']) {
      const onCall = (await api.request('GET', `${path}/on-call?at=${at}`, { token: viewer.token })).body.on_call;
      const holding = shifts.find((shift) => shift.start <= at && at < shift.end);
      if (!holding) {
        expect(onCall, at).toEqual([]);
        continue;
      }
      const person = people.get(holding.user_id)!;
      expect(onCall, at).toEqual([
        { user_id: holding.user_id, user_name: person.name, email: person.email, layer: holding.layer ?? null, from: holding.start, until: holding.end },
      ]);
    }
  });

  it("serves each user's shifts as an iCalendar feed that agrees with /shifts, behind a secret URL that a new one retires", async () => {
    const { OWNER: owner, ADMIN: admin, VIEWER: viewer } = fx.users;
    const created = await create('OWNER', {
      team_id: fx.team.id,
      layers: [{ name: 'Daily', start: '2026-11-02T09:00', rotation: { type: 'daily', length: 1 }, handoff_time: '09:00', members: [admin.id, owner.id] }],
    });
    const path = `/api/schedules/${created.body.schedule.id}`;
    // 13 November is the owner's day: the admin's override is a shift of its own.
    await api.request('POST', `${path}/overrides`, { token: owner.token, body: { user_id: admin.id, start: '2026-11-13T12:00:00Z', end: '2026-11-13T14:00:00Z' } });
    freezeClock(new Date('2026-11-10T00:00:00Z'));

    const first = await api.request('POST', '/api/me/calendar-token', { token: admin.token });
    expect(first.status).toBe(200);
    const url = new URL(first.body.url);
    expect(url.pathname).toMatch(/^\/calendars\/[\w-]{43}\.ics$/);
    const fetchEvents = async () => {
      const feed = await fetch(`${api.url}${url.pathname}`);
      expect(feed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
      const calendar = new ICAL.Component(ICAL.parse(await feed.text()));
      return calendar.getAllSubcomponents('vevent').map((event) => new ICAL.Event(event));
    };
    const span = (event: ICAL.Event) => [event.startDate.toJSDate().toISOString(), event.endDate.toJSDate().toISOString()];
    const all = await fetchEvents();
    // The admin is on call in this file's other team schedules too: this schedule's events carry its id in their UIDs.
    const events = all.filter((event) => event.uid.startsWith(created.body.schedule.id));
    // What /shifts shows of the admin over the feed's window (7 days back, 90 ahead), a shift running at its start whole.
    const shifts = [
      ...(await api.request('GET', `${path}/shifts?from=2026-11-01T00:00:00Z&to=2027-01-01T00:00:00Z`, { token: admin.token })).body.shifts,
      ...(await api.request('GET', `${path}/shifts?from=2027-01-01T00:00:00Z&to=2027-02-08T00:00:00Z`, { token: admin.token })).body.shifts,
    ].filter((shift: { user_id: string; end: string }) => shift.user_id === admin.id && shift.end > '2026-11-03T00:00:00.000Z');
    expect(events.length).toBeGreaterThan(40);
    expect(events.map(span)).toEqual(shifts.map((shift: { start: string; end: string }) => [shift.start, shift.end]));
    expect(events[0]!.startDate.toJSDate().toISOString()).toBe('2026-11-02T08:00:00.000Z'); // running at the window's start
    expect(new Set(events.map((event) => event.uid)).size).toBe(events.length);
    expect(events.find((event) => event.startDate.toJSDate().toISOString() === '2026-11-13T12:00:00.000Z')!.summary).toBe('On call: Primary (override)');

    // Fetched again 3 days and 12 hours later, the window has moved: every shift in both keeps its UID and times
    // (its end aside where the first window cut it), the one now running at the window's start included.
    freezeClock(new Date('2026-11-13T12:00:00Z'));
    const later = (await fetchEvents()).filter((event) => event.uid.startsWith(created.body.schedule.id));
    const before = new Map(events.map((event) => [event.uid, span(event)]));
    expect(span(later[0]!)).toEqual(['2026-11-06T08:00:00.000Z', '2026-11-07T08:00:00.000Z']);
    const shared = later.filter((event) => before.has(event.uid));
    expect(shared.length).toBe(later.filter((event) => span(event)[0]! < '2027-02-08T00:00:00.000Z').length);
    for (const event of shared.slice(0, -1)) expect(span(event)).toEqual(before.get(event.uid));

    // Schedules of others, of their owner alone, that name the admin: in a layer (the owner's), or only by an
    // override (the viewer's). The admin cannot read them, and sees their shifts in the feed.
    const mine = await create('OWNER', { name: 'Owner personal', layers: [weekly([admin.id])] });
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    const theirs = await create('VIEWER', { name: 'Viewer personal', layers: [weekly([viewer.id])] });
    const added = await api.request('POST', `/api/schedules/${theirs.body.schedule.id}/overrides`, {
      token: viewer.token,
      body: { user_id: admin.id, start: '2026-11-20T10:00:00Z', end: '2026-11-20T12:00:00Z' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await api.request('GET', `/api/schedules/${theirs.body.schedule.id}`, { token: admin.token })).status).toBe(404);
    const others = await fetchEvents();
    expect(others.filter((event) => event.uid.startsWith(mine.body.schedule.id)).map(span)[0]).toEqual(['2026-11-02T08:00:00.000Z', expect.any(String)]);
    expect(others.filter((event) => event.uid.startsWith(theirs.body.schedule.id)).map((event) => [...span(event), event.summary])).toEqual([
      ['2026-11-20T10:00:00.000Z', '2026-11-20T12:00:00.000Z', 'On call: Viewer personal (override)'],
    ]);

    // A fresh URL retires the previous one; the feed of a token nobody holds is not found.
    const second = await api.request('POST', '/api/me/calendar-token', { token: admin.token });
    expect(second.body.url).not.toBe(first.body.url);
    const retired = await api.request('GET', url.pathname);
    expect(retired).toMatchObject({ status: 404, body: { error: 'Calendar not found' } });
    expect((await api.request('GET', new URL(second.body.url).pathname)).status).toBe(200);
    expect((await api.request('GET', '/calendars/nothing.ics')).status).toBe(404);
  });

  it('drops a member removed from the team from every rotation from the removal on (the next member takes their turns), keeping the shifts before it', async () => {
    const { OWNER: owner, ADMIN: admin, MEMBER: member } = fx.users;
    const created = await create('OWNER', { team_id: fx.team.id, layers: [weekly([member.id, admin.id, owner.id])] });
    const path = `/api/schedules/${created.body.schedule.id}`;
    await api.request('POST', `${path}/overrides`, { token: owner.token, body: { user_id: member.id, start: '2026-11-20T00:00:00Z', end: '2026-11-21T00:00:00Z' } });
    await api.request('POST', `${path}/overrides`, { token: owner.token, body: { user_id: member.id, start: '2026-11-03T00:00:00Z', end: '2026-11-03T01:00:00Z' } });
    const shifts = async () =>
      (await api.request('GET', `${path}/shifts?from=2026-11-02T08:00:00Z&to=2026-11-23T08:00:00Z`, { token: owner.token })).body.shifts.map(
        (shift: { user_id: string; start: string; end: string; source: string }) => [shift.user_id, shift.start, shift.end, shift.source],
      );
    const onCall = async (at: string) =>
      (await api.request('GET', `${path}/on-call?at=${at}`, { token: owner.token })).body.on_call.map((entry: { user_id: string; from: string; until: string }) => [entry.user_id, entry.from, entry.until]);
    expect(await shifts()).toEqual([
      [member.id, '2026-11-02T08:00:00.000Z', '2026-11-09T08:00:00.000Z', 'layer'], // her own override inside merges
      [admin.id, '2026-11-09T08:00:00.000Z', '2026-11-16T08:00:00.000Z', 'layer'],
      [owner.id, '2026-11-16T08:00:00.000Z', '2026-11-20T00:00:00.000Z', 'layer'],
      [member.id, '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z', 'override'],
      [owner.id, '2026-11-21T00:00:00.000Z', '2026-11-23T08:00:00.000Z', 'layer'],
    ]);
    // Removed on Thursday 5 November at 12:00Z, in the middle of her turn.
    freezeClock(new Date('2026-11-05T12:00:00Z'));
    const removed = await api.request('DELETE', `/api/teams/${fx.team.id}/members/${fx.memberIds.MEMBER}`, { token: owner.token });
    expect(removed.status).toBe(200);
    // Before the removal, as it happened; from it on, as if she had never been in the rotation (admin and owner take
    // turns from the layer's start), and her later override is gone.
    expect(await shifts()).toEqual([
      [member.id, '2026-11-02T08:00:00.000Z', '2026-11-05T12:00:00.000Z', 'layer'],
      [admin.id, '2026-11-05T12:00:00.000Z', '2026-11-09T08:00:00.000Z', 'layer'],
      [owner.id, '2026-11-09T08:00:00.000Z', '2026-11-16T08:00:00.000Z', 'layer'],
      [admin.id, '2026-11-16T08:00:00.000Z', '2026-11-23T08:00:00.000Z', 'layer'],
    ]);
    expect(await onCall('2026-11-04T00:00:00Z')).toEqual([[member.id, '2026-11-02T08:00:00.000Z', '2026-11-05T12:00:00.000Z']]);
    // Never on call now or later.
    expect(await onCall('2026-11-05T12:00:00Z')).toEqual([[admin.id, '2026-11-05T12:00:00.000Z', '2026-11-09T08:00:00.000Z']]);
    expect(await onCall('2026-11-20T12:00:00Z')).toEqual([[admin.id, '2026-11-16T08:00:00.000Z', '2026-11-23T08:00:00.000Z']]);
  });
});

describe('who a schedule or policy of its owner alone may name (issue 41, 5)', () => {
  const personal = "Must be the schedule's owner or share a team with them";
  const personalPolicy = "Must be the policy's owner or share a team with them";

  it('refuses a stranger exactly as an unknown id, in layers, overrides and user targets, and writes nothing into their feed', async () => {
    // NON_MEMBER shares no team with OWNER: knowing OWNER's id must not give OWNER's e-mail, pages or calendar.
    const { NON_MEMBER: outsider, OWNER: victim } = fx.users;
    const refusals = [];
    for (const target of [victim.id, randomUUID()]) {
      refusals.push(await create('NON_MEMBER', { layers: [weekly([outsider.id, target])] }));
      refusals.push(
        await api.request('POST', '/api/escalation-policies', { token: outsider.token, body: { name: 'P', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: target }] }] } }),
      );
    }
    const [strangerSchedule, strangerPolicy, unknownSchedule, unknownPolicy] = refusals;
    expect(strangerSchedule!.status).toBe(400);
    expect(strangerSchedule!.body).toEqual({ error: 'Validation errors', details: [{ field: 'layers.0.members.1', message: personal }] });
    expect(strangerPolicy!.body).toEqual({ error: 'Validation errors', details: [{ field: 'steps.0.targets.0.id', message: personalPolicy }] });
    expect(unknownSchedule!.body).toEqual(strangerSchedule!.body);
    expect(unknownPolicy!.body).toEqual(strangerPolicy!.body);

    const own = await create('NON_MEMBER', { layers: [weekly([outsider.id])] });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    const path = `/api/schedules/${own.body.schedule.id}`;
    const override = await api.request('POST', `${path}/overrides`, { token: outsider.token, body: { user_id: victim.id, start: '2026-11-10T00:00:00Z', end: '2026-11-11T00:00:00Z' } });
    expect(override.body).toEqual({ error: 'Validation errors', details: [{ field: 'user_id', message: personal }] });
    const changed = await api.request('PUT', path, { token: outsider.token, body: { layers: [weekly([victim.id])] } });
    expect(changed.body).toEqual({ error: 'Validation errors', details: [{ field: 'layers.0.members.0', message: personal }] });
    // Nobody but the outsider is on call in it: no e-mail of the victim to read.
    expect((await api.request('GET', `${path}/on-call?at=2026-11-10T12:00:00Z`, { token: outsider.token })).body.on_call.map((entry: { user_id: string }) => entry.user_id)).toEqual([outsider.id]);
    // The victim's calendar feed (the schedules of others that name them, on their account) gained nothing.
    const account = await db().send(new GetCommand({ TableName: tableName(), Key: keys.account(victim.id), ConsistentRead: true }));
    expect([...((account.Item?.schedule_ids as Set<string> | undefined) ?? [])]).not.toContain(own.body.schedule.id);
    expect(refusals.every((refusal) => refusal.status === 400)).toBe(true);
  });

  it('checks up to 94 accounts and shared memberships in one write, and answers 400 past that', async () => {
    const lead = await api.signUp(uniqueEmail('big-lead'), 'Lead');
    const crew = await Promise.all(Array.from({ length: 48 }, (_, index) => api.signUp(uniqueEmail(`crew${index}`), `Crew ${index}`)));
    await seedTeam(lead, crew.map((user) => [user, 'MEMBER'] as const), 'Big crew');
    const body = (people: { id: string }[]) => ({ name: 'Big', time_zone: 'UTC', layers: [weekly([lead.id, ...people.map((user) => user.id)])] });
    // 46 accounts, 46 memberships and the owner's: 93 checks; one more person is 95.
    expect((await api.request('POST', '/api/schedules', { token: lead.token, body: body(crew.slice(0, 46)) })).status).toBe(201);
    const refused = await api.request('POST', '/api/schedules', { token: lead.token, body: body(crew.slice(0, 47)) });
    expect(refused.body).toEqual({ error: 'Validation errors', details: [{ field: 'layers', message: TOO_MANY_PERSON_CHECKS }] });
    expect(TOO_MANY_PERSON_CHECKS).toBe(
      "Too many people to check in one write: a schedule of its owner alone checks each other person's account and a team they share with the owner, at most 94 checks; share the schedule with a team instead",
    );
  });

  it('names the owner and people who share a team with them; a removal settles it at the write', async () => {
    const lead = await api.signUp(uniqueEmail('lead'), 'Lead');
    const pal = await api.signUp(uniqueEmail('pal'), 'Pal');
    const team = await createTeam(api, lead);
    const memberId = await join(api, lead, team.id, pal, 'VIEWER');
    const body = { name: 'Mine', time_zone: 'UTC', layers: [weekly([lead.id, pal.id])] };
    const named = await api.request('POST', '/api/schedules', { token: lead.token, body });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    const policy = await api.request('POST', '/api/escalation-policies', {
      token: lead.token,
      body: { name: 'Mine', steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: pal.id }, { type: 'user', id: lead.id }] }] },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);

    // The write has found the team they share and holds its transaction; the pal is removed first.
    const hold = holdCalls('schedules-create', 'TransactWriteItemsCommand');
    const racing = api.request('POST', '/api/schedules', { token: lead.token, body });
    await hold.arrived();
    expect((await api.request('DELETE', `/api/teams/${team.id}/members/${memberId}`, { token: lead.token })).status).toBe(200);
    hold.release();
    expect((await racing).body).toEqual({ error: 'Validation errors', details: [{ field: 'layers.0.members.1', message: personal }] });
    const after = await api.request('PUT', `/api/escalation-policies/${policy.body.escalation_policy.id}`, {
      token: lead.token,
      body: { steps: [{ delay_minutes: 0, targets: [{ type: 'user', id: pal.id }] }] },
    });
    expect(after.body).toEqual({ error: 'Validation errors', details: [{ field: 'steps.0.targets.0.id', message: personalPolicy }] });
  });
});
